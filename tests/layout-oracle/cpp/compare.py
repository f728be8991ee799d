#!/usr/bin/env python3
"""Compares ``cukc layout --batch`` answers with C++ CuTe's (``cpp_answer.py``), line by line.

Usage: compare.py queries.jsonl cukc.jsonl cpp.jsonl [--show N]

Two answers agree when both are errors (the wording differs by design) or when their
results (and slice offsets) are equal.  Queries C++ has no counterpart for (answers
with ``"skip"``) are counted apart.  Prints the agreement and, per op, the differing
queries with both answers.
"""

import argparse
import collections
import json


def agree(cukc, cpp):
    if "error" in cukc or "error" in cpp:
        return "error" in cukc and "error" in cpp
    return cukc.get("result") == cpp.get("result") and cukc.get("offset") == cpp.get("offset")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("queries")
    parser.add_argument("cukc")
    parser.add_argument("cpp")
    parser.add_argument("--show", type=int, default=5, help="differences shown per op")
    arguments = parser.parse_args()
    with open(arguments.queries) as q, open(arguments.cukc) as a, open(arguments.cpp) as b:
        rows = [(json.loads(x), json.loads(y), json.loads(z)) for x, y, z in zip(q, a, b, strict=True)]

    compared = skipped = 0
    differences = collections.defaultdict(list)
    for query, cukc, cpp in rows:
        if "skip" in cpp:
            skipped += 1
            continue
        compared += 1
        if not agree(cukc, cpp):
            differences[query.get("op")].append((query, cukc, cpp))
    differing = sum(len(items) for items in differences.values())
    print(f"{compared - differing} of {compared} answers agree with C++ CuTe "
          f"({100 * (compared - differing) / max(compared, 1):.2f}%); {skipped} queries have no C++ counterpart")
    for op, items in sorted(differences.items()):
        print(f"\n## {op}: {len(items)}")
        for query, cukc, cpp in items[:arguments.show]:
            print("query:", json.dumps(query))
            print("  cukc:", json.dumps({k: v for k, v in cukc.items() if k not in ("id", "op")}))
            print("  c++: ", json.dumps({k: v for k, v in cpp.items() if k not in ("id", "op")}))


if __name__ == "__main__":
    main()
