#!/usr/bin/env python3
"""Answers LAYOUT-QUERIES.md query lines with C++ CuTe itself.

Usage: cpp_answer.py --cutlass DIR --cuda-include DIR... < queries.jsonl > answers.jsonl

Each query becomes one C++ function over compile-time (``Int<N>``) values, as CuK
reads every literal; the functions are compiled in chunks against CUTLASS's ``cute/``
headers with g++ (host only) and the program runs each in a forked child, so that a
failed run-time check answers that query only.  A query whose code does not compile
(a violated ``static_assert``: divisibility, ranks, injectivity) is answered with an
error; the compiler's message names the line, hence the query, and the chunk is
compiled again without it.  Answers are ``{"id","op","result"}`` or ``{"id","op","error"}``
with results in CuK's notation (C++'s ``_4`` printed as ``4``).
"""

import argparse
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cpp_source  # noqa: E402

CHUNK = 150
COMPILE = ["-std=c++17", "-O0", "-w", "-fmax-errors=0"]
DRIVER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "driver.hpp")


def precompile(directory, flags):
    """The driver header, precompiled (each chunk then skips parsing CuTe)."""
    header = os.path.join(directory, "driver.hpp")
    shutil.copy(DRIVER, header)
    subprocess.run(["g++", *COMPILE, *flags, "-x", "c++-header", header, "-o", header + ".gch"], check=True)
    return header


def compile_chunk(functions, header, index, flags):
    """Compiles the chunk's functions, dropping those the compiler rejects (checking
    with -fsyntax-only, which instantiates the templates, until none is left).

    Returns the executable's path (None if nothing is left) and the rejected
    queries' positions with the compiler's first message for each."""
    rejected = {}
    alive = dict(functions)
    source = os.path.join(os.path.dirname(header), f"chunk{index}.cpp")
    for _ in range(50):
        if not alive:
            return None, rejected
        lines = cpp_source.program(header, alive)
        with open(source, "w") as handle:
            handle.write(lines.text)
        result = subprocess.run(
            ["g++", *COMPILE, "-fsyntax-only", *flags, source], capture_output=True, text=True
        )
        if result.returncode == 0:
            binary = source[:-4]
            subprocess.run(["g++", *COMPILE, *flags, source, "-o", binary], check=True)
            return binary, rejected
        failing = {}
        for match in re.finditer(rf"{re.escape(source)}:(\d+):", result.stderr):
            position = lines.owner.get(int(match.group(1)))
            if position is not None and position not in failing:
                failing[position] = _first_message(result.stderr)
        if not failing:
            raise RuntimeError(f"chunk {index} fails to compile outside any query:\n{result.stderr[:4000]}")
        for position in failing:
            rejected[position] = _message_for(result.stderr, lines, position)
            del alive[position]
    raise RuntimeError(f"chunk {index} does not converge")


def _first_message(stderr):
    match = re.search(r"(static assertion failed[^\n]*|error: [^\n]*)", stderr)
    return match.group(1) if match else "does not compile"


def _message_for(stderr, lines, position):
    """The first static_assert or error message printed after the query's line."""
    start, end = lines.span[position]
    for match in re.finditer(r":(\d+):", stderr):
        if start <= int(match.group(1)) <= end:
            rest = stderr[match.end():]
            found = re.search(r"(static assertion failed[^\n]*|error: [^\n]*)", rest)
            if found:
                return found.group(1).strip()
    return _first_message(stderr)


def run_chunk(binary):
    """The program's output: one ``position<TAB>kind<TAB>text`` line per query."""
    result = subprocess.run([binary], capture_output=True, text=True, timeout=600)
    answers = {}
    for line in result.stdout.splitlines():
        position, kind, text = line.split("\t", 2)
        answers[int(position)] = (kind, text)
    return answers


def normalize(text):
    """C++'s printing of a value in CuK's notation: ``_4`` is ``4``, an integer a number."""
    text = re.sub(r"_(?=-?\d)", "", text.replace(" ", ""))
    if re.fullmatch(r"-?\d+", text):
        return int(text)
    if text.startswith("[") and text.endswith("]"):
        return [int(item) for item in text[1:-1].split(",") if item]
    return text


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cutlass", required=True, help="a CUTLASS checkout (its include/ is used)")
    parser.add_argument("--cuda-include", action="append", default=[], help="CCCL / CUDA header directories")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    arguments = parser.parse_args()
    flags = ["-I" + os.path.join(arguments.cutlass, "include")] + ["-I" + d for d in arguments.cuda_include]

    queries = []
    for number, line in enumerate(sys.stdin):
        query = json.loads(line)
        queries.append((query.get("id", number), query.get("op"), query))
    answers = {}
    functions = {}
    for position, (_, _, query) in enumerate(queries):
        try:
            functions[position] = cpp_source.function(query)
        except cpp_source.NotInCpp as reason:
            answers[position] = ("skip", str(reason))
        except cpp_source.Malformed as reason:
            answers[position] = ("error", str(reason))

    positions = sorted(functions)
    chunks = [positions[start:start + CHUNK] for start in range(0, len(positions), CHUNK)]
    with tempfile.TemporaryDirectory() as directory, concurrent.futures.ThreadPoolExecutor(arguments.jobs) as pool:
        header = precompile(directory, flags)

        def work(index):
            chunk = {position: functions[position] for position in chunks[index]}
            binary, rejected = compile_chunk(chunk, header, index, flags)
            ran = run_chunk(binary) if binary else {}
            return rejected, ran

        for rejected, ran in pool.map(work, range(len(chunks))):
            for position, message in rejected.items():
                answers[position] = ("error", "does not compile: " + message)
            answers.update(ran)

    for position, (identifier, op, _) in enumerate(queries):
        kind, text = answers.get(position, ("error", "the program died without answering"))
        answer = {"id": identifier, "op": op}
        if kind == "result":
            answer["result"] = normalize(text)
        elif kind == "slice":
            layout, offset = text.split("\t")
            answer["result"], answer["offset"] = normalize(layout), normalize(offset)
        elif kind == "skip":
            answer["skip"] = text
        else:
            answer["error"] = text
        print(json.dumps(answer, separators=(",", ":")))


if __name__ == "__main__":
    main()
