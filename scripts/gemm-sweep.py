#!/usr/bin/env python3
"""The inference GEMM shape sweep (issue 39): cuk-examples/gemm_sm90.cuk's kernel at every
M of SIZES_M against the weight shapes (N, K) of Llama-3-8B, Llama-3-70B and DeepSeek-V3
projections, bf16, each bench beside cuBLAS on the same operands (`F.linear`'s layout:
activations (M, K) times the weight (N, K) transposed), in one `cukc bench` run on random
inputs. Prints a table of the ratios and a summary line with their geometric mean and
the worst.

    scripts/gemm-sweep.py [--cukc PATH] [--m 1,16,...] [--keep FILE]

It writes the benches into a copy of the example (the kernel and its defaults as they
are: the sweep measures the shipped configuration), so nothing here is tuned per shape.
On an H200 (66 s for the 96 shapes) the geometric mean was 0.601x cuBLAS: 0.96-1.18x
from M = 1024 on for most weights, 0.24-0.97x for M up to 256 (worst: Llama-3-8B's down
projection at M = 1), the decode shapes a 128 x 256 tile and 66 clusters waste.
"""

import argparse
import math
import os
import re
import subprocess
import sys
import tempfile

SIZES_M = [1, 16, 64, 128, 256, 1024, 4096, 16384]

# (model, projection, N, K): the weight of a linear layer is (N, K).
WEIGHTS = [
    ("llama3-8b", "qkv", 6144, 4096),
    ("llama3-8b", "o", 4096, 4096),
    ("llama3-8b", "gate_up", 28672, 4096),
    ("llama3-8b", "down", 4096, 14336),
    ("llama3-70b", "qkv", 10240, 8192),
    ("llama3-70b", "o", 8192, 8192),
    ("llama3-70b", "gate_up", 57344, 8192),
    ("llama3-70b", "down", 8192, 28672),
    ("deepseek-v3", "q_a_kv_a", 2112, 7168),
    ("deepseek-v3", "q_b", 24576, 1536),
    ("deepseek-v3", "o", 7168, 16384),
    ("deepseek-v3", "shared_down", 4096, 7168),
]

# One block per SM pair of an H100 or H200 (132 SMs), as the example's own benches.
CLUSTERS = 66

LINE = re.compile(
    r"^bench (sweep_\S+) \.\.\. [0-9.]+ ms, ([0-9.]+) TFLOP/s; cuBLAS ([0-9.]+) TFLOP/s.*?([0-9.]+)% of cuBLAS"
)


def bench_block(m, n, k):
    name = f"sweep_m{m}_n{n}_k{k}"
    return (
        f"bench {name} {{\n"
        f"    let a = randn(bf16, ({m}, {k}));\n"
        f"    let b = randn(bf16, ({n}, {k}));\n"
        f"    let c = empty(bf16, ({m}, {n}));\n"
        f"    gemm_tn({m}, {n}, {k}, a, b, c, {CLUSTERS});\n"
        f"    report flops = 2 * {m} * {n} * {k}, against cublas(a, transpose(b));\n"
        f"}}\n"
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cukc", default="target/release/cukc")
    parser.add_argument("--m", default=",".join(map(str, SIZES_M)))
    parser.add_argument("--keep", help="also write the generated bench file here")
    args = parser.parse_args()
    sizes = [int(m) for m in args.m.split(",")]
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    with open(os.path.join(root, "cuk-examples", "gemm_sm90.cuk")) as source:
        text = source.read()
    # Only the sweep's benches: the example's own tests, benches and tune blocks go.
    text = text[: text.index("\n// Four cluster tiles")] + "\n"
    shapes = [(m, n, k) for (_, _, n, k) in WEIGHTS for m in sizes]
    text += "\n".join(bench_block(m, n, k) for (m, n, k) in shapes)
    if args.keep:
        with open(args.keep, "w") as kept:
            kept.write(text)
    with tempfile.NamedTemporaryFile("w", suffix=".cuk", delete=False) as file:
        file.write(text)
        path = file.name
    run = subprocess.run([args.cukc, "bench", path], capture_output=True, text=True)
    os.unlink(path)
    measured = {}
    for line in run.stdout.splitlines():
        found = LINE.match(line)
        if found:
            ours, theirs, ratio = (float(found.group(i)) for i in (2, 3, 4))
            measured[found.group(1)] = (ours, theirs, ratio / 100)
    if not measured:
        sys.stdout.write(run.stdout + run.stderr)
        sys.exit("gemm-sweep: no bench measured")
    print(f"{'model':<12} {'proj':<12} {'M':>6} {'N':>6} {'K':>6} {'CuK TF/s':>9} {'cuBLAS':>9} {'ratio':>7}")
    ratios = []
    for model, projection, n, k in WEIGHTS:
        for m in sizes:
            entry = measured.get(f"sweep_m{m}_n{n}_k{k}")
            if entry is None:
                print(f"{model:<12} {projection:<12} {m:>6} {n:>6} {k:>6}   (not measured)")
                continue
            ours, theirs, ratio = entry
            ratios.append((ratio, model, projection, m))
            print(f"{model:<12} {projection:<12} {m:>6} {n:>6} {k:>6} {ours:9.1f} {theirs:9.1f} {ratio:7.3f}")
    mean = math.exp(sum(math.log(r) for r, *_ in ratios) / len(ratios))
    worst = min(ratios)
    print(
        f"summary: {len(ratios)} of {len(shapes)} shapes, geometric mean {mean:.3f}x cuBLAS, "
        f"worst {worst[0]:.3f}x ({worst[1]} {worst[2]}, M = {worst[3]})"
    )
    if run.returncode != 0:
        sys.stdout.write(run.stderr[-4000:])
        sys.exit(run.returncode)


if __name__ == "__main__":
    main()
