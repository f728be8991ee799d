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


def integer_tilers_as_layouts(tiler):
    """C++ products treat an integer tiler ``n`` as ``make_layout(n)`` = ``n:1``.

    pycute's ``logical_product`` sends an integer tiler to ``logical_divide`` instead
    (a documented pycute bug); passing ``n:1`` gives the C++ product.
    """
    if isinstance(tiler, bool):
        return tiler
    if isinstance(tiler, int):
        return Layout(tiler)
    if is_tuple(tiler):
        return tuple(integer_tilers_as_layouts(item) for item in tiler)
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


def flat_divide(layout, tiler):
    """C++ ``flat_divide``: ``zipped_divide`` with both modes unpacked."""
    return _unpack_both_modes(pycute.zipped_divide(layout, tiler))


def flat_product(layout, tiler):
    """C++ ``flat_product``: ``zipped_product`` with both modes unpacked."""
    return _unpack_both_modes(pycute.zipped_product(layout, integer_tilers_as_layouts(tiler)))


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
    order = sorted(range(len(stride)), key=lambda index: stride[index])
    return shape, stride, prefix, order


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


def is_injective(layout):
    table = [layout(index) for index in range(pycute.size(layout))]
    return len(set(table)) == len(table)
