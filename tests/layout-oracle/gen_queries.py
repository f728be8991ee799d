#!/usr/bin/env python3
"""Seeded random LAYOUT-QUERIES.md query lines covering every op of the protocol.

Usage: gen_queries.py [--seed S] [--count N] > queries.jsonl

Ops are taken in turn, so N >= the number of ops exercises every one of them.
Layouts are nested (rank <= 4, depth <= 3) with small shapes, mostly powers of two
so that divisibility preconditions often hold, and strides that are compact,
permuted, or random (including 0).  About a fifth of the inputs are drawn to
violate a precondition (wrong rank or congruence, non-dividing tilers, overlapping
layouts, invalid swizzles), and the text varies in spacing, trailing commas and
the ``<...>`` tiler brackets so that the parsers are exercised too.
"""

import argparse
import json
import random

SMALL_EXTENTS = [1, 2, 2, 2, 2, 4, 4, 4, 8, 8, 3, 6, 2, 4, 3, 8, 1, 2]
RANDOM_STRIDES = [0, 1, 1, 2, 3, 4, 6, 8, 16, 32]


class Generator:
    def __init__(self, seed):
        self.random = random.Random(seed)

    def chance(self, probability):
        return self.random.random() < probability

    def pick(self, options):
        return self.random.choice(options)

    # -- int-tuples -------------------------------------------------------------

    def shape(self, depth=3, rank=None, extents=SMALL_EXTENTS):
        """A shape of at most ``depth`` levels whose top level has ``rank`` modes."""
        if rank is None:
            if depth == 0 or self.chance(0.3):
                return self.pick(extents)
            rank = self.random.randint(1, 4 if depth == 3 else 3)
        return tuple(self.shape(depth - 1 if depth > 0 else 0, None, extents) for _ in range(rank))

    def top_shape(self, max_size=1024):
        """A layout's shape: rank <= 4, depth <= 3, at most ``max_size`` elements."""
        while True:
            rank = self.random.randint(1, 4)
            if rank == 1 and self.chance(0.5):
                return self.pick(SMALL_EXTENTS)
            shape = tuple(self.shape(2) for _ in range(rank))
            if _product(shape) <= max_size:
                return shape

    def like(self, shape, leaf):
        if isinstance(shape, tuple):
            return tuple(self.like(item, leaf) for item in shape)
        return leaf(shape)

    def text(self, value):
        """An int-tuple in the notation, sometimes with spaces or a trailing comma."""
        if isinstance(value, tuple):
            items = [self.text(item) for item in value]
            separator = ", " if self.chance(0.1) else ","
            trailing = "," if len(items) == 1 and self.chance(0.3) else ""
            return "(" + separator.join(items) + trailing + ")"
        return "_" if value is None else str(value)

    # -- layouts ----------------------------------------------------------------

    def strides(self, shape, kind):
        leaves = _flatten(shape)
        if kind == "compact":
            order = list(range(len(leaves)))
        elif kind == "permuted":
            order = list(range(len(leaves)))
            self.random.shuffle(order)
        else:
            return self.like(shape, lambda _: self.pick(RANDOM_STRIDES))
        compact = [0] * len(leaves)
        running = 1
        for index in order:
            compact[index] = running
            running *= leaves[index]
        if kind == "permuted" and self.chance(0.3):
            gap = self.pick([2, 4])
            compact = [stride * gap if stride >= 4 else stride for stride in compact]
        iterator = iter(compact)
        return self.like(shape, lambda _: next(iterator))

    def layout_value(self, shape=None, kind=None):
        shape = self.top_shape() if shape is None else shape
        kind = kind or self.pick(["compact", "permuted", "permuted", "random"])
        return shape, self.strides(shape, kind)

    def layout(self, shape=None, kind=None):
        shape, stride = self.layout_value(shape, kind)
        if kind == "compact" and self.chance(0.3):
            return self.text(shape)
        return self.text(shape) + ":" + self.text(stride)

    def injective_layout(self):
        return self.layout(kind=self.pick(["compact", "permuted"]))

    def small_layout(self, max_rank=2, overlap=0.25):
        rank = self.random.randint(1, max_rank)
        shape = self.pick([2, 4, 3]) if rank == 1 and self.chance(0.5) else tuple(
            self.shape(1, None, [1, 2, 2, 2, 4, 4, 3, 8]) for _ in range(rank)
        )
        kind = "random" if self.chance(overlap) else self.pick(["compact", "permuted"])
        return self.layout(shape, kind)

    # -- tilers -----------------------------------------------------------------

    def tiler_leaf(self):
        choice = self.random.random()
        if choice < 0.35:
            return self.text(self.pick([1, 2, 2, 4, 8, 3]))
        if choice < 0.45:
            return "_"
        return self.small_layout(2, overlap=0.05)

    def tiler(self, rank, op):
        if self.chance(0.35):
            return self.tiler_leaf()
        if op == "composition" and self.chance(0.97):
            modes = rank  # C++ drops the modes a shorter tiler misses, pycute keeps them
        else:
            modes = self.random.randint(1, rank + (1 if self.chance(0.1) else 0))
        items = [self.tiler_leaf() for _ in range(modes)]
        if self.chance(0.3):
            return "<" + ",".join(items) + ">"
        return "(" + ",".join(items) + ")"

    # -- queries ----------------------------------------------------------------

    def coord(self, shape, with_underscores=False, top=True):
        """A coordinate into ``shape``: hierarchical, flattened to an index per mode,
        or (rarely) of the wrong profile."""
        if top and self.chance(0.1):
            # Wrong profile, in range leaf by leaf (CuTe does not bound-check coordinates).
            return self.text(self.like(self.shape(1), lambda _: 0))
        if not isinstance(shape, tuple) or (not with_underscores and self.chance(0.2)):
            if with_underscores and self.chance(0.4 if not top else 0.05):
                return "_"
            return self.random.randrange(_product(shape))
        items = []
        for mode in shape:
            if with_underscores and self.chance(0.4):
                items.append("_")
            elif self.chance(0.3):
                items.append(str(self.random.randrange(_product(mode))))
            else:
                items.append(str(self.coord(mode, with_underscores, top=False)))
        return "(" + ",".join(items) + ")"

    def query(self, op):
        query = {"op": op}
        shape, stride = self.layout_value()
        a_text = self.text(shape) + ":" + self.text(stride)
        rank = len(shape) if isinstance(shape, tuple) else 1
        if op in ("size", "cosize", "rank", "depth", "table"):
            query["a"] = self.layout() if self.chance(0.5) else a_text
        elif op == "evaluate":
            coord = self.coord(shape)
            if isinstance(coord, int) and self.chance(0.15):
                coord += _product(shape)  # past the end: CuTe extends the last mode
            query["a"], query["coord"] = a_text, coord
        elif op == "slice":
            while not isinstance(shape, tuple):  # an integer shape only slices by `_`
                shape, stride = self.layout_value()
            a_text = self.text(shape) + ":" + self.text(stride)
            coord = self.coord(shape, with_underscores=True)
            while "_" not in str(coord):  # a slice needs a free mode
                coord = self.coord(shape, with_underscores=True)
            query["a"], query["coord"] = a_text, coord if isinstance(coord, str) else str(coord)
        elif op in ("coalesce", "filter"):
            query["a"] = a_text
            if self.chance(0.5):
                query["profile"] = self.text(self.shape(1, self.random.randint(1, rank + 1), [1]))
        elif op == "complement":
            query["a"] = self.injective_layout() if self.chance(0.95) else a_text
            if self.chance(0.6):
                query["cotarget"] = self.pick([1, 8, 16, 24, 64, 128, 256])
        elif op == "right_inverse":
            query["a"] = self.injective_layout() if self.chance(0.9) else self.layout()
        elif op == "left_inverse":
            query["a"] = self.injective_layout() if self.chance(0.985) else self.layout(kind="random")
        elif op in ("blocked_product", "raked_product"):
            query["a"], query["b"] = self.small_layout(3, overlap=0.08), self.small_layout(3, overlap=0.08)
        elif op in TILER_OPS:
            if op.endswith("_product"):
                query["a"] = self.small_layout(3, overlap=0.08)
            elif self.chance(0.7):
                shape, stride = self.layout_value(kind=self.pick(["compact", "permuted"]))
                query["a"] = self.text(shape) + ":" + self.text(stride)
            else:
                query["a"] = a_text
            query["b"] = self.tiler(len(shape) if isinstance(shape, tuple) else 1, op)
        elif op in ("swizzle", "swizzle_table"):
            self.swizzle_fields(query, op)
        else:
            self.int_tuple_fields(query, op)
        return query

    def swizzle_fields(self, query, op):
        bits = self.random.randint(0, 3)
        base = self.random.randint(0, 4)
        shift = self.random.randint(max(bits, 1), bits + 3) * self.pick([1, 1, -1])
        if bits >= 2 and self.chance(0.2):
            shift = self.random.randint(-bits + 1, bits - 1)  # violates |shift| >= bits
        if self.chance(0.01):
            bits, shift = 0, 0  # identity in C++; pycute recurses forever
        query.update(bits=bits, base=base, shift=shift)
        if op == "swizzle_table":
            if self.chance(0.3):
                query["a"] = self.small_layout(2, overlap=0.3)  # swizzle ∘ offset ∘ a
                if self.chance(0.6):
                    query["offset"] = self.random.randrange(64)
            elif self.chance(0.5):
                query["n"] = self.random.randint(0, 64)
            elif bits + base + abs(shift) > 10:
                query["n"] = 1 << 10
        elif self.chance(0.5):
            query["x"] = self.random.randrange(4096)
        else:
            shape, _ = self.layout_value()
            query["a"] = self.layout(shape)
            query["coord"] = self.coord(shape)
            if self.chance(0.5):
                query["offset"] = self.random.randrange(64)

    def int_tuple_fields(self, query, op):
        a = self.shape(2, self.random.randint(1, 3)) if self.chance(0.8) else self.pick(SMALL_EXTENTS)
        congruent = self.chance(0.8)
        other = self.like(a, lambda _: self.pick([1, 2, 3, 4])) if congruent else self.shape(2)
        if op == "product":
            query["a"] = self.text(a)
        elif op == "inner_product":
            query["a"], query["b"] = self.text(a), self.text(other)
        elif op == "shape_div":
            query["a"] = self.text(a)
            query["b"] = self.pick([1, 2, 4, 8, 3]) if self.chance(0.5) else self.text(other)
        elif op == "prefix_product":
            query["a"] = self.text(a)
            if self.chance(0.5):
                query["init"] = self.pick([1, 2, 3]) if self.chance(0.6) else self.text(other)
        elif op == "idx2crd":
            query["shape"] = self.text(a)
            query["idx"] = self.random.randrange(_product(a)) if self.chance(0.9) else self.text(self.coord_of(a))
            if isinstance(query["idx"], int) and self.chance(0.15):
                query["idx"] += _product(a) * self.random.randint(1, 3)  # past the end: the last mode absorbs it
            if self.chance(0.4):
                query["stride"] = self.text(self.like(a, lambda _: self.pick([1, 2, 3, 4])))
        elif op == "crd2idx":
            query["shape"] = self.text(a)
            coord = self.coord_of(a) if self.chance(0.8) else self.like(self.shape(1), lambda _: 0)
            query["coord"] = coord if isinstance(coord, int) else self.text(coord)
            if self.chance(0.4):
                query["stride"] = self.text(self.like(a, lambda _: self.pick([1, 2, 3, 4])))

    def coord_of(self, shape):
        if isinstance(shape, tuple) and not self.chance(0.2):
            return tuple(self.coord_of(mode) for mode in shape)
        return self.random.randrange(_product(shape))


TILER_OPS = [
    "composition", "logical_divide", "zipped_divide", "tiled_divide", "flat_divide",
    "logical_product", "zipped_product", "tiled_product", "flat_product",
]

OPS = [
    "size", "cosize", "rank", "depth", "evaluate", "slice", "table",
    "coalesce", "filter", "composition", "complement", "right_inverse", "left_inverse",
    "logical_divide", "zipped_divide", "tiled_divide", "flat_divide",
    "logical_product", "zipped_product", "tiled_product", "flat_product",
    "blocked_product", "raked_product", "swizzle", "swizzle_table",
    "product", "inner_product", "shape_div", "prefix_product", "idx2crd", "crd2idx",
]


def _flatten(value):
    if isinstance(value, tuple):
        return [leaf for item in value for leaf in _flatten(item)]
    return [value]


def _product(value):
    result = 1
    for leaf in _flatten(value):
        result *= leaf
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--count", type=int, default=len(OPS) * 100)
    arguments = parser.parse_args()
    generator = Generator(arguments.seed)
    for index in range(arguments.count):
        query = generator.query(OPS[index % len(OPS)])
        if generator.chance(0.8):
            query["id"] = index  # otherwise the default id, the line number, is the same
        print(json.dumps(query, separators=(",", ":")))


if __name__ == "__main__":
    main()
