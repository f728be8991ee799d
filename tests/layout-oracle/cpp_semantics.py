"""C++ CuTe semantics that pycute lacks or computes differently, built from pycute's
own primitives.

Each function states the C++ definition it follows (CUTLASS include/cute/layout.hpp,
include/cute/swizzle.hpp, include/cute/algorithm/tuple_algorithms.hpp; facts only).
"""

import pycute
from pycute import Layout, is_tuple


def rank_of(value):
    """C++ ``rank``: the number of top-level modes; an integer has rank 1."""
    return len(value) if is_tuple(value) else 1


def depth_of(value):
    """C++ ``depth``: 0 for an integer, 1 + the deepest element for a tuple."""
    if is_tuple(value):
        return 1 + max((depth_of(item) for item in value), default=0)
    return 0


def integer_tilers_as_layouts(tiler, compact=pycute.prefix_product):
    """C++ divides and products treat an integer tiler ``n`` as ``make_layout(n)``,
    the compact layout ``n:compact(n)``.

    pycute's ``logical_product`` sends an integer tiler to ``logical_divide`` instead
    (a documented pycute bug); passing the layout gives the C++ product. (C++
    ``composition`` differs: an integer there is ``n:1``, even for ``n == 1``.)
    """
    if isinstance(tiler, bool):
        return tiler
    if isinstance(tiler, int):
        return Layout(tiler, compact(tiler))
    if is_tuple(tiler):
        return tuple(integer_tilers_as_layouts(item, compact) for item in tiler)
    return tiler


def _zip(items):
    """C++ ``zip`` of a tuple: transpose when the first element is a tuple, else wrap."""
    if is_tuple(items[0]):
        length = len(items[0])
        assert all(is_tuple(item) and len(item) == length for item in items), "Mismatched Ranks"
        return tuple(tuple(item[index] for item in items) for index in range(length))
    return (items,)


def _unpack_both_modes(result):
    """``result(repeat<R0>(_), repeat<R1>(_))`` for a rank-2 ``result``.

    ``repeat<1>(_)`` is ``_`` itself, so a rank-1 mode is kept whole while the modes
    of a higher-rank mode are spliced into the result one level deep.
    """
    coord = tuple(
        None if rank_of(mode) == 1 else (None,) * rank_of(mode) for mode in result.shape
    )
    return Layout(pycute.slice_(coord, result.shape), pycute.slice_(coord, result.stride))


def _unpack_second_mode(result):
    """``result(_, repeat<R1>(_))``: the second mode spliced in unless it has rank 1."""
    rest = result.shape[1]
    coord = (None, None if rank_of(rest) == 1 else (None,) * rank_of(rest))
    return Layout(pycute.slice_(coord, result.shape), pycute.slice_(coord, result.stride))


def _zip2_by(value, guide):
    """C++ ``zip2_by``: under a by-mode guide, mode ``i`` of ``value`` is split by entry
    ``i`` and the pieces are gathered into ((first pieces...), (second pieces..., modes
    past the guide)); under anything else (a layout, an integer, ``_``) the mode must
    be a rank-2 tuple and is taken as it is (a static_assert otherwise).  pycute's
    ``hier_unzip`` reads ``_`` as a ``1:0`` tile instead."""
    if is_tuple(guide):
        assert is_tuple(value) and len(value) >= len(guide), "Mismatched ranks"
        split = [_zip2_by(value[index], entry) for index, entry in enumerate(guide)]
        rest = tuple(value[len(guide):])
        return tuple(piece[0] for piece in split), tuple(piece[1] for piece in split) + rest
    assert is_tuple(value) and len(value) == 2, "Mismatched ranks: zip2_by needs a (tile, rest) pair"
    return value


def _tile_unzip(layout, tiler):
    """C++ ``tile_unzip``: ``zip2_by`` on the shape and on the stride."""
    return Layout(_zip2_by(layout.shape, tiler), _zip2_by(layout.stride, tiler))


def zipped_divide(layout, tiler):
    """C++ ``zipped_divide``: ``tile_unzip(logical_divide(layout, tiler), tiler)``."""
    return _tile_unzip(pycute.logical_divide(layout, tiler), tiler)


def zipped_product(layout, tiler):
    """C++ ``zipped_product``: ``tile_unzip(logical_product(layout, tiler), tiler)``."""
    return _tile_unzip(pycute.logical_product(layout, tiler), tiler)


def tiled_divide(layout, tiler):
    """C++ ``tiled_divide``: ``zipped_divide`` with its second mode unpacked, a rank-1
    second mode kept whole (pycute always unwraps it)."""
    return _unpack_second_mode(zipped_divide(layout, tiler))


def tiled_product(layout, tiler):
    """C++ ``tiled_product``, as ``tiled_divide``."""
    return _unpack_second_mode(zipped_product(layout, tiler))


def compact_strides(shape, current=1):
    """C++ ``compact_col_major``: like pycute's prefix product, except that a static
    extent of 1 gets stride 0."""
    if is_tuple(shape):
        strides = []
        for mode in shape:
            strides.append(compact_strides(mode, current))
            current *= pycute.product(mode)
        return tuple(strides)
    return 0 if shape == 1 else current


def flat_divide(layout, tiler):
    """C++ ``flat_divide``: ``zipped_divide`` with both modes unpacked."""
    return _unpack_both_modes(zipped_divide(layout, tiler))


def flat_product(layout, tiler):
    """C++ ``flat_product``: ``zipped_product`` with both modes unpacked."""
    return _unpack_both_modes(zipped_product(layout, integer_tilers_as_layouts(tiler)))


def _append_to_rank(layout, rank):
    """C++ ``append<R>(layout)``: pad with ``1:0`` modes up to rank ``R``."""
    if rank_of(layout.shape) >= rank:
        return layout
    shape = layout.shape if is_tuple(layout.shape) else (layout.shape,)
    stride = layout.stride if is_tuple(layout.stride) else (layout.stride,)
    padding = rank - len(shape)
    return Layout(shape + (1,) * padding, stride + (0,) * padding)


def _rank_sensitive_product(block, tiler, block_first):
    """C++ 3.8+ ``blocked_product``/``raked_product``: the logical product of the two
    layouts padded to a common rank, its two modes zipped (no coalesce)."""
    rank = max(rank_of(block.shape), rank_of(tiler.shape))
    result = pycute.logical_product(_append_to_rank(block, rank), _append_to_rank(tiler, rank))
    first, second = (0, 1) if block_first else (1, 0)
    return Layout(
        _zip((result.shape[first], result.shape[second])),
        _zip((result.stride[first], result.stride[second])),
    )


def blocked_product(block, tiler):
    return _rank_sensitive_product(block, tiler, block_first=True)


def raked_product(block, tiler):
    return _rank_sensitive_product(block, tiler, block_first=False)


def _coalesced_modes(layout):
    coalesced = pycute.coalesce(layout)
    shape = coalesced.shape if is_tuple(coalesced.shape) else (coalesced.shape,)
    stride = coalesced.stride if is_tuple(coalesced.stride) else (coalesced.stride,)
    prefix = [1]
    for extent in shape:
        prefix.append(prefix[-1] * extent)
    return shape, stride, prefix, _exchange_sorted(stride)


def _exchange_sorted(keys):
    """The indices of ``keys`` in the order C++'s ``SortByKey`` gives: its
    ``exchange_sort`` is not stable, so equal strides may come in a different order."""
    order = list(range(len(keys)))
    for first in range(len(order)):
        for second in range(first + 1, len(order)):
            if keys[order[second]] < keys[order[first]]:
                order[first], order[second] = order[second], order[first]
    return order


def right_inverse(layout):
    """C++ ``right_inverse``: coalesce, visit the modes by increasing stride, and keep
    every mode whose stride equals the running contiguous extent.

    pycute instead stops at the first mode that does not match, so a stride-0 mode
    (sorted first) makes its answer ``1:0``.
    """
    shape, stride, prefix, order = _coalesced_modes(layout)
    result_shape, result_stride, current = [1], [0], 1
    for index in order:
        if stride[index] == current:
            result_shape.append(shape[index])
            result_stride.append(prefix[index])
            current = shape[index] * stride[index]
    return pycute.coalesce(Layout(tuple(result_shape), tuple(result_stride)))


def left_inverse(layout):
    """C++ ``left_inverse`` (a quasi-inverse for non-injective inputs): coalesce, visit
    the nonzero strides in increasing order; each contributes the shape
    ``stride / size(shapes so far)`` (which must divide exactly) at stride
    ``prefix_product`` of its mode; the last visited mode's shape closes the result.

    pycute builds ``right_inverse(make_layout(layout, complement(layout)))``, which
    agrees for injective layouts only.
    """
    shape, stride, prefix, order = _coalesced_modes(layout)
    result_shape, result_stride = [], [0]
    for index in order:
        if stride[index] == 0:
            continue
        covered = pycute.product(tuple(result_shape))
        assert stride[index] % covered == 0, "Left inverse divisibility condition"
        result_shape.append(stride[index] // covered)
        result_stride.append(prefix[index])
    result_shape.append(shape[order[-1]])
    return pycute.coalesce(Layout(tuple(result_shape), tuple(result_stride)))


def swizzle(bits, base, shift, offset):
    """C++ ``Swizzle<B,M,S>``: requires ``B >= 0``, ``M >= 0``, ``|S| >= B``; XORs the
    ``B`` bits at ``M + max(0,S)`` into those at ``M - min(0,S)``.  With ``S == 0``
    (so ``B == 0``) it is the identity, where pycute's ``shiftr``/``shiftl`` recurse
    forever."""
    assert bits >= 0 and base >= 0 and abs(shift) >= bits
    mask = ((1 << bits) - 1) << (base + max(0, shift))
    moved = offset & mask
    moved = moved >> shift if shift >= 0 else moved << -shift
    return offset ^ moved


def _ceil_div(a, b):
    return -(-a // b)


def coalesce_x(layout):
    """C++ ``detail::coalesce_x``: ``coalesce`` that also keeps the function outside
    the domain, by reading a trailing extent 1 as extent 2 (so ``1:1`` becomes ``2:1``
    where ``coalesce`` gives ``1:0``). Merges right to left as C++'s ``bw_coalesce``."""
    shapes, strides = pycute.flatten(layout.shape), pycute.flatten(layout.stride)
    new_shape = [2 if shapes[-1] == 1 else shapes[-1]]
    new_stride = [strides[-1]]
    for extent, stride in zip(reversed(shapes[:-1]), reversed(strides[:-1])):
        if extent == 1:
            continue
        if extent * stride == new_stride[0]:
            new_shape[0] *= extent
            new_stride[0] = stride
        else:
            new_shape.insert(0, extent)
            new_stride.insert(0, stride)
    if len(new_shape) == 1:
        return Layout(new_shape[0], new_stride[0])
    return Layout(tuple(new_shape), tuple(new_stride))


class WrongInCpp(AssertionError):
    """C++ computes an answer that is not what the operation promises; the Rust crate
    rejects the input instead (a deliberate, documented difference)."""


def composition(layout_a, layout_b):
    """C++ ``composition`` for static layouts.

    Differs from pycute in four ways: the left operand is flattened with
    ``coalesce_x``; a by-mode tuple tiler drops the modes of ``layout_a`` it does not
    reach (C++ ``transform_layout`` over the tiler's modes only; pycute keeps them);
    the stride condition is ``rest_stride % curr_shape == 0 or rest_stride <
    curr_shape`` with ``next_shape = ceil_div(curr_shape, rest_stride)`` (pycute:
    mutual divisibility and floor division); and the "Shape Divisibility Condition"
    ``rest_shape % new_shape == 0`` is asserted (pycute does not check it and returns
    a layout of the wrong size).

    One case is rejected with ``WrongInCpp``: a stride below a left mode that it
    does not divide while the right operand goes on into the next mode; C++ returns a
    layout there that is not ``a o b`` (``((3,3)):((3,1)) o 4:2`` gives
    ``(2,2):(6,1)``, values 0,6,1,7 instead of 0,6,4,2).
    """
    if layout_b is None:
        return layout_a
    if isinstance(layout_b, int):
        return composition(layout_a, Layout(layout_b))
    if is_tuple(layout_b):
        assert len(layout_a) >= len(layout_b), "composition: too many modes in tiler"
        return pycute.make_layout(composition(layout_a[i], layout_b[i]) for i in range(len(layout_b)))
    if is_tuple(layout_b.shape):
        return pycute.make_layout(composition(layout_a, mode) for mode in layout_b)
    if layout_b.stride == 0:
        return Layout(layout_b.shape, 0)
    flat = coalesce_x(layout_a)
    if not is_tuple(flat.shape):
        return Layout(layout_b.shape, layout_b.stride * flat.stride)
    result_shape, result_stride = [], []
    rest_shape, rest_stride = layout_b.shape, layout_b.stride
    for curr_shape, curr_stride in zip(flat.shape[:-1], flat.stride[:-1]):
        assert rest_stride % curr_shape == 0 or rest_stride < curr_shape, "Stride Divisibility Condition"
        next_shape = _ceil_div(curr_shape, abs(rest_stride))
        next_stride = _ceil_div(abs(rest_stride), curr_shape) * pycute.signum(rest_stride)
        if next_shape == 1 or rest_shape == 1:
            rest_stride = next_stride
            continue
        new_shape = min(next_shape, rest_shape)
        assert rest_shape % new_shape == 0, "Shape Divisibility Condition"
        if curr_shape % rest_stride != 0 and new_shape < rest_shape:
            raise WrongInCpp("C++ composes past a mode its stride does not divide")
        result_shape.append(new_shape)
        result_stride.append(rest_stride * curr_stride)
        rest_shape, rest_stride = rest_shape // new_shape, next_stride
    if not result_shape:
        return Layout(rest_shape, rest_stride * flat.stride[-1])
    if rest_shape != 1:
        result_shape.append(rest_shape)
        result_stride.append(rest_stride * flat.stride[-1])
    if len(result_shape) == 1:
        return Layout(result_shape[0], result_stride[0])
    return Layout(tuple(result_shape), tuple(result_stride))


def _has_zero_extent(shape):
    if is_tuple(shape):
        return any(_has_zero_extent(mode) for mode in shape)
    return shape == 0


def complement_checked(pycute_complement):
    """C++ ``complement``: pycute's, but rejecting what C++ rejects.

    pycute does not check injectivity and returns a layout with a 0 extent for an
    overlapping layout; C++ asserts "Non-injective Layout detected in complement".
    """

    def complement(layout, max_idx=1):
        result = pycute_complement(layout, max_idx)
        assert not _has_zero_extent(result.shape), "Non-injective Layout detected in complement"
        return result

    return complement


def idx2crd(idx, shape, stride=None):
    """C++ ``idx2crd``.  With a stride, pycute's ``(idx / stride) % shape`` per leaf.
    Without: a tuple index maps mode by mode and an integer leaf under an integer shape
    is returned as is (pycute divides each leaf by the compact stride of the whole
    shape); an integer index into a tuple shape is ``crd2idx(idx, shape, basis)``, which
    lets the last mode absorb an index past the end (pycute wraps it)."""
    if stride is not None:
        return pycute.idx2crd(idx, shape, stride)
    if is_tuple(idx):
        assert is_tuple(shape) and len(idx) == len(shape), "Mismatched Ranks"
        return tuple(idx2crd(i, s) for i, s in zip(idx, shape))
    if not is_tuple(shape):
        return idx
    coord = []
    for position, mode in enumerate(shape):
        if position == len(shape) - 1:
            coord.append(idx2crd(idx, mode))
        else:
            extent = pycute.product(mode)
            coord.append(idx2crd(idx % extent, mode))
            idx //= extent
    return tuple(coord)
