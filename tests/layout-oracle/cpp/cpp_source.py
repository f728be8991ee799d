"""One LAYOUT-QUERIES.md query as a C++ function over CuTe's compile-time values.

Every literal becomes an ``Int<N>`` (CuK treats every literal as static, as C++ does a
compile-time integer), a tuple ``cute::make_tuple(...)``, a layout ``make_layout(shape,
stride)`` (``make_layout(shape)`` when written without strides, so that C++ picks the
compact strides), ``_`` CuTe's ``_``.  The function's body calls the driver's ``emit``
helpers (``driver.hpp``), which print ``position<TAB>kind<TAB>value``.
"""

import re

_TOKEN = re.compile(r"\s*(-?\d+|[(),:<>_])")


class Malformed(ValueError):
    """The query cannot be read (CuK answers it with an error too)."""


class NotInCpp(ValueError):
    """The op has no C++ CuTe counterpart; the query is left out of the comparison."""


class _Reader:
    def __init__(self, text):
        if not isinstance(text, str):
            raise Malformed(f"expected notation text, found {text!r}")
        self.text = text
        self.tokens = []
        position, text = 0, text.rstrip()
        while position < len(text):
            match = _TOKEN.match(text, position)
            if match is None:
                raise Malformed(f"unexpected character in {self.text!r}")
            self.tokens.append(match.group(1))
            position = match.end()
        self.position = 0

    def peek(self):
        return self.tokens[self.position] if self.position < len(self.tokens) else None

    def take(self, expected=None):
        token = self.peek()
        if token is None or (expected is not None and token != expected):
            raise Malformed(f"expected {expected or 'more'} in {self.text!r}")
        self.position += 1
        return token

    def finish(self, value):
        if self.peek() is not None:
            raise Malformed(f"trailing text in {self.text!r}")
        return value

    def group(self, close, element):
        items = [element()]
        while self.peek() == ",":
            self.take(",")
            if self.peek() == close:
                break
            items.append(element())
        self.take(close)
        return items

    def int_tuple(self, underscore=False):
        token = self.peek()
        if token == "(":
            self.take("(")
            return "cute::make_tuple(" + ", ".join(self.group(")", lambda: self.int_tuple(underscore))) + ")"
        if token == "_" and underscore:
            self.take("_")
            return "_"
        if token is not None and re.fullmatch(r"-?\d+", token):
            self.take()
            return f"Int<{int(token)}>{{}}"
        raise Malformed(f"expected an integer or '(' in {self.text!r}")

    def layout(self):
        shape = self.int_tuple()
        if self.peek() == ":":
            self.take(":")
            return f"make_layout({shape}, {self.int_tuple()})"
        return f"make_layout({shape})"

    def tiler(self):
        token = self.peek()
        if token == "<":
            self.take("<")
            return "make_tile(" + ", ".join(self.group(">", self.tiler)) + ")"
        if token == "_":
            self.take("_")
            return "_"
        start = self.position
        if token == "(":
            self.take("(")
            items = "make_tile(" + ", ".join(self.group(")", self.tiler)) + ")"
        else:
            items = self.int_tuple()
        if self.peek() == ":":
            self.position = start
            return self.layout()
        return items


def _read(query, name, method, **options):
    if name not in query:
        raise Malformed(f"missing field `{name}`")
    value = query[name]
    if method == "int_tuple" and isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    reader = _Reader(value)
    return reader.finish(getattr(reader, method)(**options))


def _int(query, name, default=None):
    value = query.get(name, default)
    if not isinstance(value, int) or isinstance(value, bool):
        raise Malformed(f"field `{name}` must be an integer")
    return value


SIMPLE = {
    "size": "size(A)", "cosize": "cosize(A)", "rank": "rank(A)", "depth": "depth(A)",
    "right_inverse": "right_inverse(A)", "left_inverse": "left_inverse(A)",
}
TILER_OPS = {
    "composition", "logical_divide", "zipped_divide", "tiled_divide", "flat_divide",
    "logical_product", "zipped_product", "tiled_product", "flat_product",
}


def function(query):
    """The body of the C++ function answering ``query`` (uses ``P``, its position)."""
    op = query.get("op")
    if op == "prefix_product":
        raise NotInCpp("C++ CuTe has no prefix_product (compact_col_major differs by design)")
    a = lambda: _read(query, "a", "layout")  # noqa: E731
    if op in SIMPLE:
        return f"auto A = {a()}; emit(P, {SIMPLE[op]});"
    if op == "evaluate":
        return f"auto A = {a()}; emit(P, A({_read(query, 'coord', 'int_tuple')}));"
    if op == "slice":
        return f"auto A = {a()}; emit_slice(P, slice_and_offset({_read(query, 'coord', 'int_tuple', underscore=True)}, A));"
    if op == "table":
        return f"auto A = {a()}; emit_table(P, A);"
    if op in ("coalesce", "filter"):
        profile = f", {_read(query, 'profile', 'int_tuple')}" if "profile" in query else ""
        return f"auto A = {a()}; emit(P, {op}(A{profile}));"
    if op == "complement":
        cotarget = f", Int<{_int(query, 'cotarget')}>{{}}" if "cotarget" in query else ""
        return f"auto A = {a()}; emit(P, complement(A{cotarget}));"
    if op in TILER_OPS:
        return f"auto A = {a()}; auto B = {_read(query, 'b', 'tiler')}; emit(P, {op}(A, B));"
    if op in ("blocked_product", "raked_product"):
        return f"auto A = {a()}; auto B = {_read(query, 'b', 'layout')}; emit(P, {op}(A, B));"
    if op in ("swizzle", "swizzle_table"):
        return _swizzle(op, query)
    return _int_tuple_op(op, query)


def _swizzle(op, query):
    bits, base, shift = _int(query, "bits"), _int(query, "base"), _int(query, "shift")
    functor = f"Swizzle<{bits},{base},{shift}>{{}}"
    offset = f"Int<{_int(query, 'offset', 0)}>{{}}"
    if op == "swizzle" and "x" in query:
        return f"emit(P, {functor}(int64_t({_int(query, 'x')})));"
    if op == "swizzle":
        coord = _read(query, "coord", "int_tuple")
        return f"auto A = {_read(query, 'a', 'layout')}; emit(P, {functor}({offset} + A({coord})));"
    if "a" in query:
        if "n" in query:
            raise Malformed("`n` and `a` exclude each other")
        layout = _read(query, "a", "layout")
        return f"emit_table(P, make_composed_layout({functor}, {offset}, {layout}));"
    count = _int(query, "n", 1 << (bits + base + abs(shift)))
    if not 0 <= count <= 1 << 20:
        raise Malformed("`n` out of range")
    return f"emit_swizzle_table(P, {functor}, {count});"


def _int_tuple_op(op, query):
    t = lambda name: _read(query, name, "int_tuple")  # noqa: E731
    if op == "product":
        return f"emit(P, product({t('a')}));"
    if op in ("inner_product", "shape_div"):
        return f"emit(P, {op}({t('a')}, {t('b')}));"
    if op == "idx2crd":
        stride = f", {t('stride')}" if "stride" in query else ""
        return f"emit(P, idx2crd({t('idx')}, {t('shape')}{stride}));"
    if op == "crd2idx":
        stride = t("stride") if "stride" in query else "compact_col_major(S)"
        return f"auto S = {t('shape')}; emit(P, crd2idx({t('coord')}, S, {stride}));"
    raise Malformed(f"unknown op {op!r}")


class Program:
    """A chunk's C++ text, which line belongs to which query, and each query's lines."""

    def __init__(self, driver, functions):
        lines = [f'#include "{driver}"']
        self.owner, self.span = {}, {}
        for position, body in functions.items():
            lines.append(f"static void q{position}(int P) {{ {body} }}")
            self.owner[len(lines)] = position
            self.span[position] = (len(lines), len(lines))
        lines.append("int main() {")
        for position in functions:
            lines.append(f"  run({position}, q{position});")
        lines.append("}")
        self.text = "\n".join(lines) + "\n"


def program(driver, functions):
    return Program(driver, functions)
