#!/usr/bin/env python3
"""Adversarial inputs through the built `cukc` binary, by hand (never in CI).

Each case runs `cukc` as a user or an editor would, under a wall-clock limit and an
address-space cap, and fails if the process crashes (a signal, or exit 101: a Rust
panic), runs past the time limit, or runs out of memory. Exit codes 0, 1 and 2 are
answers. The inputs are the examples mutated (tokens deleted, duplicated, swapped,
numbers and names replaced) plus generated extremes (deep nesting, long chains, long
names, huge literals, many mistakes on one line, odd line endings, long runs of comment
and blank lines, huge MMA operand tiles, huge shared buffers and `smem(N)`), special
files (a FIFO, `/dev/zero`, a folder, a link to a device) given as sources, `cukc build`
under a hostile `PATH` (empty and relative entries, with a `python3` and a `ptxas`
planted in the working folder that must never run), and for `layout --batch` random
queries with random and extreme operands.

    python3 scripts/fuzz-cli.py --cukc target/release/cukc --cases 2000 [--seed 7]

prints, per entry point, how many cases ran and every failure with a file to replay it.
"""

import argparse
import json
import os
import random
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TIME_LIMIT_S = 10
MEMORY_LIMIT_BYTES = 1 << 30  # RSS cannot pass 1 GiB when the address space cannot
NUMBERS = ["0", "1", "3", "7", "-1", "1000000", "4611686018427387904", "2.5", "0x7fffffff", "1 << 63"]


def cap_memory():
    # The address space, thread stacks included: RSS cannot pass it.
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT_BYTES, MEMORY_LIMIT_BYTES))


def run(args, stdin=b"", **options):
    """(exit code or -signal, seconds, stderr tail) of one cukc run."""
    started = time.monotonic()
    try:
        done = subprocess.run(args, input=stdin, capture_output=True, timeout=TIME_LIMIT_S,
                              preexec_fn=cap_memory, **options)
    except subprocess.TimeoutExpired:
        return "timeout", time.monotonic() - started, b""
    return done.returncode, time.monotonic() - started, done.stderr[-400:]


def seeds():
    files = sorted((ROOT / "cuk-examples").glob("*.cuk")) + sorted((ROOT / "tests" / "typecheck").glob("*.cuk"))
    return [path.read_text() for path in files]


def mutate(text, rng):
    tokens = re.findall(r"\s+|[A-Za-z_][A-Za-z0-9_]*|\d+|.", text)
    names = [token for token in tokens if re.match(r"[A-Za-z_]", token)]
    for _ in range(rng.randint(1, 4)):
        if not tokens:
            break
        i = rng.randrange(len(tokens))
        action = rng.randrange(6)
        if action == 0:
            del tokens[i]
        elif action == 1:
            tokens.insert(i, tokens[i])
        elif action == 2 and i + 1 < len(tokens):
            tokens[i], tokens[i + 1] = tokens[i + 1], tokens[i]
        elif action == 3 and tokens[i].isdigit():
            tokens[i] = rng.choice(NUMBERS)
        elif action == 4 and names and re.match(r"[A-Za-z_]", tokens[i]):
            tokens[i] = rng.choice(names)
        else:
            tokens.insert(i, rng.choice(["(", ")", "{", "}", ";", "<<", "*", "static", "const", "\r", "//", "/*"]))
    return "".join(tokens)


HUGE = ["1073741824", "4294967296", "65536", "4611686018427387904", "257", "0"]


def huge_tiles(rng):
    """An MMA operand, a shared buffer or an `smem(N)` of an extreme size."""
    rows, big = rng.choice(HUGE), rng.choice(HUGE)
    kind = rng.randrange(4)
    if kind == 0:
        return ("// target: sm_100a\nkernel k(a: gmem f32[1:1]) launch grid(1) block(128) {\n"
                "    let slot = smem u32[1:1];\n    let sA = smem bf16[(128, 16):(16, 1)];\n"
                f"    let sB = smem bf16[({rows}, 16):(16, 1)];\n"
                "    if thread_idx.x == 0 { tcgen05_mma(slot[0].to(i32), sA, sB, false); }\n}\n")
    if kind == 1:
        return ("kernel k(a: gmem f32[32:1]) launch grid(1) block(32) {\n"
                f"    let s = smem f32[composition(swizzle(3, 4, 3), ({rows}, {big}):({big}, 1))];\n"
                "    s[thread_idx.x, 0] = a[thread_idx.x];\n    a[thread_idx.x] = s[thread_idx.x, 0];\n}\n")
    if kind == 2:
        return (f"kernel k(a: gmem f32[32:1]) launch grid(1) block(32) smem({big}) {{\n"
                "    a[thread_idx.x] = 1.0;\n}\n")
    return (f"kernel k(a: gmem f32[32:1]) launch grid(1) block(32) {{\n    let r = rmem f32[({rows}, {big}):(1, 0)];\n"
            "    r[0, 0] = a[thread_idx.x];\n    a[thread_idx.x] = r[0, 0];\n}\n")


def long_runs(rng):
    """Long runs of comment or blank lines, stray characters or tokens around a kernel."""
    lines = rng.choice([10_000, 300_000, 1_000_000])
    run_of = rng.choice(["// x\n", "\n", "\r\n", "  \t\n", "/* */\n", "@\n", "x\n", "; "])
    kernel = "kernel k(a: gmem f32[32:1]) launch grid(1) block(32) { a[thread_idx.x] = 1.0; }\n"
    return run_of * lines + kernel if rng.random() < 0.5 else kernel + run_of * lines


def extreme(rng):
    n = rng.choice([10, 1000, 5000, 30000])
    kind = rng.randrange(12)
    if kind == 10:
        return huge_tiles(rng)
    if kind == 11:
        return long_runs(rng)
    if kind == 0:
        return "".join(f"const C{i}: int = C{i + 1} + 1;\n" for i in range(n)) + f"const C{n}: int = 0;\n"
    if kind == 1:
        return "const X = " + "(" * n + "1" + ")" * n + ";\n"
    if kind == 2:
        return "const X = 1" + " + 1" * n + ";\n"
    if kind == 3:
        name = "a" * (n * 10)
        return f"const {name}: int = 1;\nconst Y: int = {name}b;\n"
    if kind == 4:
        return "const X: int = " + " ".join("@" for _ in range(n)) + ";\n"
    if kind == 5:
        return "// comment\rconst X: int = 1;\rconst Y: int = X << 63;\r"
    if kind == 6:
        params = ", ".join(f"a{i}: i32" for i in range(16))
        total = " + ".join(f"a{i}" for i in range(16))
        return (f"kernel k({params}, out: gmem i32[(1):(1)]) launch grid(1) block(1) {{\n"
                f"    let s = {total};\n    out[0] = " + " * ".join(["s"] * 8) + ";\n}\n")
    if kind == 7:
        return f"atom a<const N: int>: copy {{ arch = a(N = N + 1); }}\nconst X = a(N = {n});\n"
    if kind == 8:
        return (f"kernel big(a: gmem f32[({n * 64}):(1)], out: gmem f32[({n * 64}):(1)]) launch grid(1) block(1) {{\n"
                "    let r = make_fragment_like(a);\n    copy(a, r);\n    copy(r, out);\n}\n")
    return "\u0000\uffff\u202e" * n


def layout_text(rng, depth=0):
    if depth > 2 or rng.random() < 0.5:
        shape = rng.choice([1, 2, 3, 4, 8, 16, 1 << 20, 1 << 40])
        stride = rng.choice([0, 1, 2, 4, -1, 1 << 40])
        return f"{shape}:{stride}"
    modes = [layout_text(rng, depth + 1) for _ in range(rng.randint(1, 3))]
    shapes = ",".join(m.split(":")[0] for m in modes)
    strides = ",".join(m.split(":")[1] for m in modes)
    return f"({shapes}):({strides})"


def batch_lines(rng, count):
    ops = ["size", "cosize", "evaluate", "slice", "table", "coalesce", "composition", "complement",
           "right_inverse", "left_inverse", "logical_divide", "zipped_divide", "tiled_divide",
           "flat_divide", "logical_product", "zipped_product", "blocked_product", "raked_product",
           "swizzle", "swizzle_table", "idx2crd", "crd2idx", "shape_div"]
    lines = []
    for index in range(count):
        op = rng.choice(ops)
        query = {"id": index, "op": op, "a": layout_text(rng), "b": rng.choice([layout_text(rng), "(2,_)", "_", "4"]),
                 "coord": rng.choice([0, 5, 1 << 62, "(1,_)"]), "idx": rng.choice([0, 40, -1, 1 << 62]),
                 "shape": rng.choice(["(4,8)", "(2,(3,4))", "0"]), "bits": rng.randint(-1, 70),
                 "base": rng.randint(-1, 70), "shift": rng.randint(-70, 70), "n": rng.choice([4, 1 << 30]),
                 "x": rng.randint(-5, 1 << 40)}
        line = json.dumps(query)
        if rng.random() < 0.05:
            line = line[: rng.randrange(len(line))]
        lines.append(line)
    return ("\n".join(lines) + "\n").encode()


def special_files(cukc, scratch, rounds):
    """`check`, `build` and `test` of a FIFO, /dev/zero, a folder and a link to a device:
    each must answer (exit 1 or 2) within the time limit, never block."""
    fifo = scratch / "pipe.cuk"
    if not fifo.exists():
        os.mkfifo(fifo)
    folder = scratch / "folder.cuk"
    folder.mkdir(exist_ok=True)
    link = scratch / "zero.cuk"
    if not link.exists():
        link.symlink_to("/dev/zero")
    for _ in range(rounds):
        for special in [fifo, Path("/dev/zero"), folder, link, Path("/dev/null")]:
            for entry, command in [
                ("special check", [cukc, "check", str(special)]),
                ("special build", [cukc, "build", "--emit", "kir", "-o", "-", str(special)]),
                ("special test", [cukc, "test", "--emulate", str(special)]),
            ]:
                code, seconds, stderr = run(command)
                failure = None
                if code not in (0, 1, 2):
                    failure = f"{entry}: {code} after {seconds:.1f}s on {special}: {stderr.decode(errors='replace')}"
                yield entry, failure


SMALL_KERNELS = [
    "kernel k(a: gmem f32[32:1]) launch grid(1) block(32) { a[thread_idx.x] = 1.0; }\n",
    (ROOT / "cuk-examples" / "copy_basic.cuk").read_text(),
    (ROOT / "cuk-examples" / "axpy.cuk").read_text(),
]


def hostile_path(cukc, scratch, rng, rounds):
    """`cukc build` with empty and relative PATH entries, in a folder where a python3 and a
    ptxas are planted: neither may run."""
    folder = scratch / "hostile"
    folder.mkdir(exist_ok=True)
    marker = folder / "planted-ran"
    for name in ["python3", "ptxas", "pip", "sh"]:
        planted = folder / name
        planted.write_text(f"#!/bin/sh\ntouch '{marker}'\n")
        planted.chmod(0o755)
    paths = ["::/usr/bin:/bin", ".:/usr/bin:/bin", "/usr/bin:/bin:", "hostile:/usr/bin", ""]
    for case in range(rounds):
        source = folder / f"case{case}.cuk"
        # A small kernel: the case is about which programs run, and the attention
        # example alone takes ptxas 10-30 s in a debug build on a busy machine.
        source.write_text(rng.choice(SMALL_KERNELS))
        environment = dict(os.environ, PATH=rng.choice(paths), CUKC_OFFLINE="1")
        environment.pop("CUKC_PTXAS", None)
        code, seconds, stderr = run([cukc, "build", str(source), "-o", str(folder / "out.cubin")],
                                    cwd=folder, env=environment)
        failure = None
        if marker.exists():
            marker.unlink()
            failure = f"hostile PATH: a planted program ran ({environment['PATH']!r}) on {source}"
        elif code not in (0, 1, 2):
            failure = f"hostile PATH: {code} after {seconds:.1f}s: {stderr.decode(errors='replace')}"
        yield "hostile PATH build", failure


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cukc", default=str(ROOT / "target" / "release" / "cukc"))
    parser.add_argument("--cases", type=int, default=1000, help="cases per entry point")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--keep", default=str(ROOT / "target" / "fuzz-cli"), help="where failures are kept")
    args = parser.parse_args()
    args.cukc = str(Path(args.cukc).resolve())
    rng = random.Random(args.seed)
    corpus = seeds()
    keep = Path(args.keep)
    keep.mkdir(parents=True, exist_ok=True)
    failures = []
    counts = {}
    slowest = {}
    with tempfile.TemporaryDirectory() as scratch:
        for case in range(args.cases):
            text = extreme(rng) if case % 5 == 0 else mutate(rng.choice(corpus), rng)
            path = Path(scratch) / f"case{case}.cuk"
            path.write_text(text, errors="surrogatepass")
            for entry, command in [
                ("check", [args.cukc, "check", str(path)]),
                ("build", [args.cukc, "build", "--emit", "kir", "-o", "-", str(path)]),
            ]:
                code, seconds, stderr = run(command)
                counts[entry] = counts.get(entry, 0) + 1
                slowest[entry] = max(slowest.get(entry, 0.0), seconds)
                if code not in (0, 1, 2):
                    kept = keep / f"{entry}-{args.seed}-{case}.cuk"
                    kept.write_text(text, errors="surrogatepass")
                    failures.append(f"{entry}: {code} after {seconds:.1f}s on {kept}: {stderr.decode(errors='replace')}")
        for entry, failure in special_files(args.cukc, Path(scratch), max(1, args.cases // 20)):
            counts[entry] = counts.get(entry, 0) + 1
            if failure:
                failures.append(failure)
        for entry, failure in hostile_path(args.cukc, Path(scratch), rng, max(1, args.cases // 20)):
            counts[entry] = counts.get(entry, 0) + 1
            if failure:
                failures.append(failure)
        for case in range(max(1, args.cases // 10)):
            lines = batch_lines(rng, 100)
            code, seconds, stderr = run([args.cukc, "layout", "--batch"], lines)
            counts["layout --batch"] = counts.get("layout --batch", 0) + 100
            slowest["layout --batch"] = max(slowest.get("layout --batch", 0.0), seconds)
            if code != 0:
                kept = keep / f"batch-{args.seed}-{case}.jsonl"
                kept.write_bytes(lines)
                failures.append(f"layout --batch: {code} after {seconds:.1f}s on {kept}: {stderr.decode(errors='replace')}")
    for entry, count in counts.items():
        print(f"{entry}: {count} inputs, slowest {slowest.get(entry, 0.0):.2f}s")
    for failure in failures:
        print("FAIL", failure)
    print(f"{len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
