"""CuTe text notation (LAYOUT-QUERIES.md) to and from pycute values.

Int-tuples become Python ints and tuples, layouts become ``pycute.Layout``,
tilers become pycute's tiler values (``Layout``, ``int``, ``None`` for ``_``, or a
tuple of tilers), and slice coordinates use ``None`` for ``_``.
"""

import re

import pycute

_TOKEN = re.compile(r"\s*(-?\d+|[(),:<>_])")


class NotationError(ValueError):
    """The text is not in the notation."""


def pycute_compact(shape):
    """pycute's compact column-major strides: the exclusive prefix product."""
    return pycute.prefix_product(shape)


# How a shape written without strides gets its strides; ``cpp_rules`` swaps in C++'s.
compact_strides = pycute_compact


def _tokens(text):
    position = 0
    tokens = []
    text = text.rstrip()
    while position < len(text):
        match = _TOKEN.match(text, position)
        if match is None:
            raise NotationError(f"unexpected character at {position} in {text!r}")
        tokens.append(match.group(1))
        position = match.end()
    return tokens


class _Reader:
    def __init__(self, text):
        self.text = text
        self.tokens = _tokens(text)
        self.position = 0

    def peek(self):
        if self.position < len(self.tokens):
            return self.tokens[self.position]
        return None

    def take(self, expected=None):
        token = self.peek()
        if token is None or (expected is not None and token != expected):
            raise NotationError(f"expected {expected or 'more'} in {self.text!r}")
        self.position += 1
        return token

    def finish(self, value):
        if self.peek() is not None:
            raise NotationError(f"trailing text in {self.text!r}")
        return value

    def group(self, close, element):
        """Elements after an opening bracket, up to ``close``; a trailing comma is allowed."""
        items = [element()]
        while self.peek() == ",":
            self.take(",")
            if self.peek() == close:
                break
            items.append(element())
        self.take(close)
        return tuple(items)

    def int_tuple(self, allow_underscore=False):
        token = self.peek()
        if token == "(":
            self.take("(")
            return self.group(")", lambda: self.int_tuple(allow_underscore))
        if token == "_" and allow_underscore:
            self.take("_")
            return None
        if token is not None and re.fullmatch(r"-?\d+", token):
            self.take()
            return int(token)
        raise NotationError(f"expected an integer or '(' in {self.text!r}")

    def layout(self):
        shape = self.int_tuple()
        if self.peek() == ":":
            self.take(":")
            return pycute.Layout(shape, self.int_tuple())
        return pycute.Layout(shape, compact_strides(shape))

    def tiler(self):
        token = self.peek()
        if token == "<":
            self.take("<")
            return self.group(">", self.tiler)
        if token == "_":
            self.take("_")
            return None
        start = self.position
        if token == "(":
            self.take("(")
            items = self.group(")", self.tiler)
        else:
            items = self.int_tuple()
        if self.peek() == ":":
            # The bracketed group was a shape: re-read it as an int-tuple.
            self.position = start
            return self.layout()
        return items


def parse_int_tuple(text):
    reader = _Reader(text)
    return reader.finish(reader.int_tuple())


def parse_coord(text):
    reader = _Reader(text)
    return reader.finish(reader.int_tuple(allow_underscore=True))


def parse_layout(text):
    reader = _Reader(text)
    return reader.finish(reader.layout())


def parse_tiler(text):
    reader = _Reader(text)
    return reader.finish(reader.tiler())


def format_int_tuple(value):
    if isinstance(value, tuple):
        return "(" + ",".join(format_int_tuple(item) for item in value) + ")"
    if value is None:
        return "_"
    return str(value)


def format_layout(layout):
    return format_int_tuple(layout.shape) + ":" + format_int_tuple(layout.stride)


def int_tuple_field(value):
    """A query field holding an int-tuple: a JSON number or a string in the notation."""
    if isinstance(value, bool):
        raise NotationError("expected an int-tuple, found a boolean")
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        return parse_int_tuple(value)
    raise NotationError(f"expected an int-tuple, found {value!r}")


def int_tuple_answer(value):
    """An int-tuple as an answer: a JSON number for an integer, else the notation."""
    if isinstance(value, tuple):
        return format_int_tuple(value)
    return value
