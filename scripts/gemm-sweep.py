#!/usr/bin/env python3
"""The inference GEMM shape sweep (issue 39): cuk-examples/gemm_sm90.cuk's kernel at every
M of SIZES_M against the weight shapes (N, K) of Llama-3-8B, Llama-3-70B and DeepSeek-V3
projections, bf16, each bench beside cuBLAS on the same operands (`F.linear`'s layout:
activations (M, K) times the weight (N, K) transposed), in one `cukc bench` run on random
inputs. Prints a table of the ratios and a summary line with their geometric mean and
the worst.

    scripts/gemm-sweep.py [--cukc PATH] [--m 1,16,...] [--clusters N] [--consts "BM = 64, ..."] [--keep FILE]

It writes the benches into a copy of the example, each call with the configuration
`TABLE` gives its M (`--consts` and `--clusters` give one for every call instead).
On an H200 (about 60 s for the 96 shapes), with the table: geometric mean 0.755x cuBLAS,
0.985x over the 36 shapes from M = 1024 on (worst 0.611x, DeepSeek-V3's 2112 x 7168 at
M = 1024) and 0.644x over the 60 decode shapes up to M = 256 (worst 0.391x, Llama-3-8B's
down projection at M = 1). With the example's defaults everywhere it was 0.601x (decode
0.447x). Split-K and swapping A and B for the narrowest M are next.
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

# The configuration by M: (largest M, clusters, const arguments). Decode shapes take
# 64-row tiles, 64 columns wide, 8 stages deep, one block per SM and no multicast, so
# that more blocks stream the weight (H200, M <= 256 over the 60 decode shapes: geometric
# mean 0.644-0.678x cuBLAS in two runs, against 0.447x with the defaults; 0.630x with
# 128-wide tiles and 4 stages, 0.502x with 64-wide tiles and 4 stages). The rest keep the
# example's defaults.
TABLE = [
    (256, 132, "BM = 64, BN = 64, EPI = 1, CM = 1, RASTER = 0, STAGES = 8"),
    (None, CLUSTERS, ""),
]


def configuration(m, clusters, consts):
    """The clusters and const arguments for M = `m`: the table's, unless given."""
    if clusters is not None or consts is not None:
        return (clusters or CLUSTERS, consts or "")
    for largest, table_clusters, table_consts in TABLE:
        if largest is None or m <= largest:
            return (table_clusters, table_consts)
    return (CLUSTERS, "")

LINE = re.compile(
    r"^bench (sweep_\S+) \.\.\. [0-9.]+ ms, ([0-9.]+) TFLOP/s; cuBLAS ([0-9.]+) TFLOP/s.*?([0-9.]+)% of cuBLAS"
)


def bench_block(m, n, k, clusters, consts):
    name = f"sweep_m{m}_n{n}_k{k}"
    extra = f", {consts}" if consts else ""
    return (
        f"bench {name} {{\n"
        f"    let a = randn(bf16, ({m}, {k}));\n"
        f"    let b = randn(bf16, ({n}, {k}));\n"
        f"    let c = empty(bf16, ({m}, {n}));\n"
        f"    gemm_tn({m}, {n}, {k}, a, b, c, {clusters}{extra});\n"
        f"    report flops = 2 * {m} * {n} * {k}, against cublas(a, transpose(b));\n"
        f"}}\n"
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cukc", default="target/release/cukc")
    parser.add_argument("--m", default=",".join(map(str, SIZES_M)))
    parser.add_argument("--clusters", type=int, help="clusters for every call (default: the table's)")
    parser.add_argument("--consts", help="const arguments for every call (default: the table's)")
    parser.add_argument("--keep", help="also write the generated bench file here")
    args = parser.parse_args()
    sizes = [int(m) for m in args.m.split(",")]
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    with open(os.path.join(root, "cuk-examples", "gemm_sm90.cuk")) as source:
        text = source.read()
    # Only the sweep's benches: the example's own tests, benches and tune blocks go.
    text = text[: text.index("\n// Four cluster tiles")] + "\n"
    shapes = [(m, n, k) for (_, _, n, k) in WEIGHTS for m in sizes]
    text += "\n".join(
        bench_block(m, n, k, *configuration(m, args.clusters, args.consts)) for (m, n, k) in shapes
    )
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
