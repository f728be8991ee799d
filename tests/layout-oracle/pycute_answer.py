#!/usr/bin/env python3
"""Answer LAYOUT-QUERIES.md query lines (stdin) with pycute, one JSON answer per line.

Usage: PYTHONPATH=<dir holding pycute> pycute_answer.py < queries.jsonl > answers.jsonl

An answer is ``{"id", "op", "result"}`` (plus ``"offset"`` for slice) or
``{"id", "op", "error"}`` when pycute raises or asserts.  Where pycute is known to
differ from C++ CuTe (LAYOUT-QUERIES.md, "The reference", and the further
differences listed in README.md here) the answer is the C++ one, computed in
``cpp_semantics`` from pycute's primitives, and carries an ``"exception"`` field
naming the difference, so that the comparer can count it apart from plain agreement.
Every query is answered twice, with pycute as shipped and under ``cpp_rules``; where
the two answers differ the C++ one is given.
"""

import contextlib
import json
import signal
import sys

import pycute

import cpp_semantics as cpp
import notation
from notation import (
    format_layout,
    int_tuple_answer,
    int_tuple_field,
    parse_coord,
    parse_layout,
    parse_tiler,
)

SECONDS_PER_QUERY = 2


class QueryError(Exception):
    """The query itself is malformed (missing or ill-typed field)."""


class PycuteTimeout(Exception):
    pass


def _field(query, name, default=KeyError):
    if name in query:
        return query[name]
    if default is KeyError:
        raise QueryError(f"missing field '{name}'")
    return default


def _layout(query, name="a"):
    value = _field(query, name)
    if not isinstance(value, str):
        raise QueryError(f"field '{name}' must be a layout string")
    return parse_layout(value)


def _tiler(query, name="b"):
    value = _field(query, name)
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if not isinstance(value, str):
        raise QueryError(f"field '{name}' must be a tiler string")
    return parse_tiler(value)


def _int(query, name, default=KeyError):
    value = _field(query, name, default)
    if isinstance(value, str):
        value = int_tuple_field(value)
    if value is None or isinstance(value, int) and not isinstance(value, bool):
        return value
    raise QueryError(f"field '{name}' must be an integer")


def _int_tuple(query, name, default=KeyError):
    value = _field(query, name, default)
    return None if value is None else int_tuple_field(value)


def _coord(query):
    value = _field(query, "coord")
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if not isinstance(value, str):
        raise QueryError("field 'coord' must be a coordinate")
    return parse_coord(value)


def _layout_answer(layout):
    return {"result": format_layout(layout)}


def _slice(query):
    layout, coord = _layout(query), _coord(query)
    sliced, offset = pycute.slice_and_offset(coord, layout)
    answer = {"result": format_layout(sliced), "offset": offset}
    if coord is None:
        # C++ slice(_, layout) is the layout itself; pycute wraps it in a 1-tuple.
        answer["result"] = format_layout(layout)
        answer["exception"] = "slice by a top-level `_`: pycute wraps the layout in a 1-tuple, C++ returns it"
    return answer


def _table(query):
    layout = _layout(query)
    return {"result": [layout(index) for index in range(pycute.size(layout))]}


def _by_profile(function):
    def answer(query):
        return _layout_answer(function(_layout(query), _int_tuple(query, "profile", None)))

    return answer


def _complement(query):
    layout, cotarget = _layout(query), _int(query, "cotarget", None)
    if cotarget is None:
        # C++ complement(layout) targets cosize(filter(layout)); pycute's default of 1
        # gives the same layout because its last mode is then ceil_div(1, n) = 1.
        return _layout_answer(pycute.layout.complement(layout))
    return _layout_answer(pycute.layout.complement(layout, cotarget))


def _right_inverse(query):
    layout = _layout(query)
    answer = _attempt(lambda: _layout_answer(pycute.right_inverse(layout)))
    cpp_answer = _attempt(lambda: _layout_answer(cpp.right_inverse(layout)))
    if answer != cpp_answer:
        cpp_answer["exception"] = (
            "right_inverse: pycute stops at the first stride that breaks contiguity "
            "(any stride-0 mode), C++ skips it and keeps scanning"
        )
    return cpp_answer


def _left_inverse(query):
    layout = _layout(query)
    answer = _attempt(lambda: _layout_answer(pycute.left_inverse(layout)))
    cpp_answer = _attempt(lambda: _layout_answer(cpp.left_inverse(layout)))
    if answer != cpp_answer:
        # Both are left inverses of an injective layout, differing off its image.
        cpp_answer["exception"] = (
            "left_inverse: pycute inverts (layout, complement(layout)), C++ builds the "
            "inverse from the sorted strides (a quasi-inverse when not injective)"
        )
    return cpp_answer


def _late(name):
    """pycute's function ``name`` as bound when called, so that ``cpp_rules`` applies."""
    return lambda *arguments: getattr(pycute.layout, name)(*arguments)


def _with_tiler(function, integer_is_compact_layout=True):
    """An op of a layout and a tiler; integers in the tiler become compact layouts
    (``make_layout(n)``, with the strides of the rules in force) unless the op is
    ``composition``, which reads ``n`` as ``n:1``."""

    def answer(query):
        layout, tiler = _layout(query), _tiler(query)
        if integer_is_compact_layout:
            tiler = cpp.integer_tilers_as_layouts(tiler, notation.compact_strides)
        return _layout_answer(function(layout, tiler))

    return answer


def _with_layout_b(function):
    def answer(query):
        return _layout_answer(function(_layout(query), _layout(query, "b")))

    return answer


def _swizzle_parameters(query):
    return _int(query, "bits"), _int(query, "base"), _int(query, "shift")


def _swizzle_or_cpp(parameters, offsets):
    """pycute's swizzle of every offset, or C++'s where pycute recurses (shift 0)."""
    try:
        functor = pycute.Swizzle(*parameters)
        return [functor(offset) for offset in offsets], None
    except RecursionError:
        values = [cpp.swizzle(*parameters, offset) for offset in offsets]
        return values, "swizzle with shift 0: pycute's shiftr/shiftl recurse forever, C++ is the identity"


def _swizzle(query):
    parameters = _swizzle_parameters(query)
    if "x" in query:
        offset = _int(query, "x")
    else:
        layout, coord = _layout(query), _coord(query)
        offset = _int(query, "offset", 0) + layout(coord)
    values, exception = _swizzle_or_cpp(parameters, [offset])
    answer = {"result": values[0]}
    if exception:
        answer["exception"] = exception
    return answer


def _swizzle_table(query):
    parameters = _swizzle_parameters(query)
    bits, base, shift = parameters
    if "a" in query:  # swizzle ∘ offset ∘ a over a's domain
        layout, offset = _layout(query), _int(query, "offset", 0)
        offsets = [offset + layout(index) for index in range(pycute.size(layout))]
    else:
        count = _int(query, "n", None)
        if count is None:
            count = 1 << (bits + base + abs(shift))
        offsets = range(count)
    values, exception = _swizzle_or_cpp(parameters, offsets)
    answer = {"result": values}
    if exception:
        answer["exception"] = exception
    return answer


def _idx2crd(query):
    idx, shape, stride = _int_tuple(query, "idx"), _int_tuple(query, "shape"), _int_tuple(query, "stride", None)
    answer = _attempt(lambda: {"result": int_tuple_answer(pycute.idx2crd(idx, shape, stride))})
    cpp_answer = _attempt(lambda: {"result": int_tuple_answer(cpp.idx2crd(idx, shape, stride))})
    if answer != cpp_answer:
        cpp_answer["exception"] = (
            "idx2crd of a tuple index without stride: C++ maps it mode by mode"
            if pycute.is_tuple(idx)
            else "idx2crd past the end of a tuple shape: C++'s last mode absorbs the overflow, pycute wraps"
        )
    return cpp_answer


def _crd2idx(query):
    coord, shape = _int_tuple(query, "coord"), _int_tuple(query, "shape")
    return {"result": int_tuple_answer(pycute.crd2idx(coord, shape, _int_tuple(query, "stride", None)))}


def _prefix_product(query):
    init = _int_tuple(query, "init", 1)
    return {"result": int_tuple_answer(pycute.prefix_product(_int_tuple(query, "a"), init))}


OPS = {
    "size": lambda q: {"result": pycute.size(_layout(q))},
    "cosize": lambda q: {"result": pycute.cosize(_layout(q))},
    "rank": lambda q: {"result": cpp.rank_of(_layout(q).shape)},
    "depth": lambda q: {"result": cpp.depth_of(_layout(q).shape)},
    "evaluate": lambda q: {"result": _layout(q)(_coord(q))},
    "slice": _slice,
    "table": _table,
    "coalesce": _by_profile(pycute.coalesce),
    "filter": _by_profile(pycute.filter),
    "composition": _with_tiler(_late("composition"), integer_is_compact_layout=False),
    "complement": _complement,
    "right_inverse": _right_inverse,
    "left_inverse": _left_inverse,
    "logical_divide": _with_tiler(_late("logical_divide")),
    "zipped_divide": _with_tiler(_late("zipped_divide")),
    "tiled_divide": _with_tiler(_late("tiled_divide")),
    "flat_divide": _with_tiler(cpp.flat_divide),
    "logical_product": _with_tiler(_late("logical_product")),
    "zipped_product": _with_tiler(_late("zipped_product")),
    "tiled_product": _with_tiler(_late("tiled_product")),
    "flat_product": _with_tiler(cpp.flat_product),
    "blocked_product": _with_layout_b(cpp.blocked_product),
    "raked_product": _with_layout_b(cpp.raked_product),
    "swizzle": _swizzle,
    "swizzle_table": _swizzle_table,
    "product": lambda q: {"result": pycute.product(_int_tuple(q, "a"))},
    "inner_product": lambda q: {"result": pycute.inner_product(_int_tuple(q, "a"), _int_tuple(q, "b"))},
    "shape_div": lambda q: {"result": int_tuple_answer(pycute.shape_div(_int_tuple(q, "a"), _int_tuple(q, "b")))},
    "prefix_product": _prefix_product,
    "idx2crd": _idx2crd,
    "crd2idx": _crd2idx,
}


@contextlib.contextmanager
def cpp_rules():
    """pycute with C++'s ``composition`` and ``complement`` (see ``cpp_semantics``),
    also inside the divides and products that call them."""
    names = ("composition", "complement", "zipped_divide", "zipped_product", "tiled_divide", "tiled_product")
    saved = {name: getattr(pycute.layout, name) for name in names}
    patched = {
        "composition": cpp.composition,
        "complement": cpp.complement_checked(saved["complement"]),
        "zipped_divide": cpp.zipped_divide,
        "zipped_product": cpp.zipped_product,
        "tiled_divide": cpp.tiled_divide,
        "tiled_product": cpp.tiled_product,
    }
    for name, function in patched.items():
        setattr(pycute.layout, name, function)
    notation.compact_strides = cpp.compact_strides
    try:
        yield
    finally:
        for name, function in saved.items():
            setattr(pycute.layout, name, function)
        notation.compact_strides = notation.pycute_compact


CPP_RULES_EXCEPTION = (
    "C++ rules (cpp_semantics): composition drops the modes a by-mode tiler does not "
    "reach and checks its divisibility conditions, complement rejects non-injective "
    "layouts, tiled_divide/tiled_product keep a rank-1 rest mode whole, compact strides "
    "of extent-1 modes are 0, a `_` in a zipped/tiled/flat tiler takes its mode as a "
    "(tile, rest) pair; pycute does none of these"
)


def _answer_both_ways(handler, query):
    """pycute's answer, or C++'s (tagged) where the C++ rules change it."""
    answer = _attempt(lambda: handler(query))
    with cpp_rules():
        cpp_answer = _attempt(lambda: handler(query))
    both_errors = "error" in answer and "error" in cpp_answer
    if cpp_answer != answer and not both_errors and "exception" not in cpp_answer:
        cpp_answer["exception"] = CPP_RULES_EXCEPTION
        if "WrongInCpp" in cpp_answer.get("error", ""):
            cpp_answer["exception"] = (
                "composition past a mode whose extent the stride does not divide: C++ "
                "returns a layout that is not a o b, the Rust crate rejects it"
            )
    return cpp_answer


def _attempt(compute):
    """The answer ``compute`` gives, or an error answer for whatever it raises."""
    try:
        return compute()
    except PycuteTimeout:
        raise
    except RecursionError:
        return {"error": "pycute: recursion too deep"}
    except Exception as error:  # pycute signals violated preconditions by assert
        message = str(error) or "(no message)"
        return {"error": f"pycute: {type(error).__name__}: {message}"}


def answer_line(line, line_number):
    try:
        query = json.loads(line)
    except json.JSONDecodeError as error:
        return {"id": line_number, "op": None, "error": f"bad JSON: {error}"}
    if not isinstance(query, dict):
        return {"id": line_number, "op": None, "error": "a query must be a JSON object"}
    op = query.get("op")
    answer = {"id": query.get("id", line_number), "op": op}
    handler = OPS.get(op)
    if handler is None:
        answer["error"] = f"unknown op {op!r}"
        return answer
    signal.alarm(SECONDS_PER_QUERY)
    try:
        answer.update(_answer_both_ways(handler, query))
    except PycuteTimeout:
        answer["error"] = f"pycute: no answer within {SECONDS_PER_QUERY} s"
    finally:
        signal.alarm(0)
    return answer


def _on_alarm(signum, frame):
    raise PycuteTimeout()


def main():
    signal.signal(signal.SIGALRM, _on_alarm)
    sys.setrecursionlimit(400)
    for line_number, line in enumerate(sys.stdin):
        print(json.dumps(answer_line(line, line_number), separators=(",", ":")), flush=True)


if __name__ == "__main__":
    main()
