#!/usr/bin/env python3
"""Adversarial inputs through the `cuk` Python package, by hand (never in CI).

Worker interpreters, each under a 1 GiB address-space cap, run cases one after another:
`cuk.compile` of mutated examples and generated extremes (long runs of comment and blank
lines, huge MMA operand tiles and shared buffers, stray characters), `cuk.load` of
special files (a FIFO, `/dev/zero`, a folder, a file past 16 MiB), loads from a disk
cache whose entries are tampered with (manifest edited or swapped for a FIFO, cubin
replaced) and calls of emulated kernels with random arguments (NumPy arrays of random
shapes and dtypes, NumPy scalars, huge and negative integers, strings, `None`, extra
and repeated keywords). A case passes when it returns or raises a Python exception;
it fails when the worker dies (a signal, an abort), runs past 10 s on one case, or
prints a traceback from a panic.

    PYTHONPATH=<folder with the cuk package> python3 scripts/fuzz-python.py --cases 500 [--seed 7]

prints how many cases of each kind ran and each failure with its kind and seed.
"""

import argparse
import json
import os
import random
import resource
import select
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PATIENCE_S = 10
KINDS = ["compile", "extreme", "special", "cache", "call"]


def cap_memory():
    limit = 1 << 30
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def seeds():
    files = sorted((ROOT / "cuk-examples").glob("*.cuk")) + sorted((ROOT / "python" / "tests" / "kernels").glob("*.cuk"))
    return [path.read_text() for path in files]


def mutate(rng, text):
    pieces = text.split(" ")
    for _ in range(rng.randint(1, 4)):
        at = rng.randrange(len(pieces))
        choice = rng.randrange(4)
        if choice == 0:
            del pieces[at]
        elif choice == 1:
            pieces.insert(at, rng.choice(pieces))
        elif choice == 2:
            pieces[at] = rng.choice(["0", "-1", "1073741824", "4611686018427387904", "@", "((", "x"])
        else:
            other = rng.randrange(len(pieces))
            pieces[at], pieces[other] = pieces[other], pieces[at]
    return " ".join(pieces)


def extreme(rng):
    n = rng.choice(["1073741824", "4294967296", "65536", "0"])
    kernel = "kernel k(a: gmem f32[32:1]) launch grid(1) block(32) { a[thread_idx.x] = 1.0; }\n"
    return rng.choice([
        "// x\n" * 300_000 + kernel,
        "\n" * 1_000_000 + kernel,
        "@\n" * 1_000_000,
        "let x = (a + b) * c;\n" * 200_000,
        "// target: sm_100a\nkernel k(a: gmem f32[1:1]) launch grid(1) block(128) {\n"
        "    let slot = smem u32[1:1];\n    let sA = smem bf16[(128, 16):(16, 1)];\n"
        f"    let sB = smem bf16[({n}, 16):(16, 1)];\n"
        "    if thread_idx.x == 0 { tcgen05_mma(slot[0].to(i32), sA, sB, false); }\n}\n",
        "kernel k(a: gmem f32[32:1]) launch grid(1) block(32) {\n"
        f"    let s = smem f32[composition(swizzle(3, 4, 3), ({n}, 1024):(1024, 1))];\n"
        "    s[thread_idx.x, 0] = a[thread_idx.x];\n}\n",
        f"kernel k(a: gmem f32[32:1]) launch grid(1) block(32) smem({n}) {{ a[thread_idx.x] = 1.0; }}\n",
    ])


# The worker: reads one JSON case a line, runs it, answers one line.
WORKER = r'''
import json, os, random, sys
import numpy
import cuk

def argument(rng):
    kind = rng.randrange(9)
    if kind == 0:
        shape = tuple(rng.choice([0, 1, 3, 32, 64]) for _ in range(rng.randint(0, 3)))
        dtype = rng.choice([numpy.float32, numpy.float16, numpy.int32, numpy.float64, numpy.uint8])
        return numpy.zeros(shape, dtype=dtype)
    if kind == 1:
        return rng.choice([numpy.int64(64), numpy.float32(2), numpy.int32(-1), numpy.bool_(True)])
    if kind == 2:
        return rng.choice([0, -1, 2**31, 2**63, 10**400, 64, 256])
    if kind == 3:
        return rng.choice([2.5, float("nan"), float("inf"), -0.0, 1e300])
    if kind == 4:
        return rng.choice(["x", None, [], {}, object(), b"\0"])
    return numpy.zeros((64, 64), dtype=numpy.float32)

def run(case):
    rng = random.Random(case["seed"])
    kind = case["kind"]
    try:
        if kind in ("compile", "extreme"):
            cuk.compile(case["text"], name="case.cuk", emulate=True, cache_dir=case["cache"])
        elif kind == "special":
            cuk.load(case["path"], cache_dir=case["cache"])
        elif kind == "cache":
            cuk.load(case["path"], target="sm_90a", cache_dir=case["cache"])
        elif kind == "call":
            module = cuk.compile(case["text"], name="call.cuk", emulate=True, cache_dir=case["cache"])
            for name in case["kernels"]:
                kernel = getattr(module, name)
                args = [argument(rng) for _ in range(rng.randint(0, 6))]
                kwargs = {rng.choice(["m", "k", "n", "a", "out", "alpha", "x"]): argument(rng)
                          for _ in range(rng.randint(0, 2))}
                try:
                    kernel(*args, **kwargs)
                except (TypeError, ValueError, RuntimeError, OverflowError, cuk.CompileError):
                    pass
    except (cuk.CompileError, OSError, ValueError, TypeError, RuntimeError, AttributeError):
        pass
    except MemoryError:
        return "MemoryError"
    return "ok"

for line in sys.stdin:
    case = json.loads(line)
    print(run(case), flush=True)
'''


class Worker:
    def __init__(self):
        self.process = subprocess.Popen([sys.executable, "-c", WORKER], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                        preexec_fn=cap_memory, text=True)

    def run(self, case):
        """`ok`, or why the case failed (the worker is then gone)."""
        self.process.stdin.write(json.dumps(case) + "\n")
        self.process.stdin.flush()
        ready, _, _ = select.select([self.process.stdout], [], [], PATIENCE_S)
        if not ready:
            self.process.kill()
            return f"no answer within {PATIENCE_S} s"
        answer = self.process.stdout.readline().strip()
        if answer == "ok":
            return "ok"
        self.process.kill()
        status = self.process.wait()
        tail = self.process.stderr.read()[-600:]
        return f"{answer or 'died'} (exit {status}): {tail}"


def tamper(rng, cache):
    """Damages one entry of `cache` the way an attacker or a crash might."""
    entries = [entry for entry in Path(cache).iterdir() if entry.is_dir()] if Path(cache).is_dir() else []
    if not entries:
        return
    entry = rng.choice(entries)
    manifest = entry / "manifest.json"
    choice = rng.randrange(4)
    # An earlier round may have left a FIFO here: writing one would block this script.
    for name in ["manifest.json", "kernels.cubin"]:
        path = entry / name
        if path.exists() and not path.is_file():
            path.unlink()
    try:
        if choice == 0 and manifest.is_file():
            data = json.loads(manifest.read_text())
            for kernel in data.get("kernels", []):
                kernel.get("params", []).reverse()
                kernel["assumptions"] = []
            manifest.write_text(json.dumps(data))
        elif choice == 1:
            target = entry / rng.choice(["manifest.json", "kernels.cubin"])
            target.unlink(missing_ok=True)
            os.mkfifo(target)
        elif choice == 2:
            (entry / "kernels.cubin").write_bytes(b"\x7fELF" + bytes(rng.randrange(256) for _ in range(64)))
        else:
            manifest.write_text('{"kernels": [{"params": [{"name": "x", "kind": "?"}]}]}')
    except OSError:
        pass


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=500)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    corpus = seeds()
    counts = {kind: 0 for kind in KINDS}
    failures = []
    with tempfile.TemporaryDirectory() as scratch:
        scratch = Path(scratch)
        cache = str(scratch / "cache")
        fifo = scratch / "pipe.cuk"
        os.mkfifo(fifo)
        (scratch / "folder.cuk").mkdir()
        huge = scratch / "huge.cuk"
        with open(huge, "wb") as file:
            file.truncate((16 << 20) + 1)
        specials = [str(fifo), "/dev/zero", str(scratch / "folder.cuk"), str(huge), "/dev/null"]
        loadable = [str(ROOT / "cuk-examples" / name) for name in ["axpy.cuk", "copy_vectorized.cuk"]]
        callable_sources = [(ROOT / "cuk-examples" / "axpy.cuk").read_text(),
                            (ROOT / "python" / "tests" / "kernels" / "copy_f32.cuk").read_text()]
        worker = Worker()
        for number in range(args.cases):
            kind = KINDS[number % len(KINDS)]
            case = {"kind": kind, "seed": rng.randrange(2**32), "cache": cache}
            if kind == "compile":
                case["text"] = mutate(rng, rng.choice(corpus))
            elif kind == "extreme":
                case["text"] = extreme(rng)
            elif kind == "special":
                case["path"] = rng.choice(specials)
            elif kind == "cache":
                tamper(rng, cache)
                case["path"] = rng.choice(loadable)
            else:
                source = rng.choice(callable_sources)
                case["text"] = source
                case["kernels"] = ["axpy"] if "kernel axpy" in source else ["copy_f32"]
            counts[kind] += 1
            outcome = worker.run(case)
            if outcome != "ok":
                failures.append(f"{kind} (seed {case['seed']}): {outcome}")
                worker = Worker()
        worker.process.stdin.close()
        worker.process.wait()
    for kind, count in counts.items():
        print(f"{kind}: {count} cases")
    for failure in failures:
        print("FAIL", failure)
    print(f"{len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
