#!/usr/bin/env python3
"""The inference GEMM shape sweep (issue 39): at every M of SIZES_M against the weight
shapes (N, K) of Llama-3-8B, Llama-3-70B and DeepSeek-V3 projections, bf16, the kernel
the table picks for that M (cuk-examples/gemm_small_m_sm90.cuk's swap-AB split-K kernel
for the decode rows, gemm_sm90.cuk's persistent kernel for the rest; the table is
python/cuk/gemm_table.py, which `cuk.linear` launches too), each bench beside
cuBLAS on the same operands (`F.linear`'s layout: activations (M, K) times the weight
(N, K) transposed), in one `cukc bench` run on random inputs. Prints a table of the
ratios and a summary line with their geometric mean and the worst.

    scripts/gemm-sweep.py [--cukc PATH] [--m 1,16,...] [--clusters N] [--consts "BM = 64, ..."] [--keep FILE]

`--consts` and `--clusters` give one gemm_sm90 configuration for every call instead of
the table's. On an H200 with the table (about 70 s): geometric mean 0.933x cuBLAS over
the 96 shapes (0.755x before the small-M kernel), 0.913x over the 60 with M <= 256,
worst 0.557x (Llama-3-8B's 4096 x 4096 at M = 256): M = 128 and 256 are what is left.
"""

import argparse
import importlib.util
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

# The GPU's multiprocessors: an H100's or H200's 132.
SMS = 132


def load_table(root):
    """python/cuk/gemm_table.py, the configuration by M that `cuk.linear` launches too,
    loaded by its path (it imports only the standard library, so neither the package's
    extension nor torch is needed here)."""
    path = os.path.join(root, "python", "cuk", "gemm_table.py")
    spec = importlib.util.spec_from_file_location("gemm_table", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The configuration by M is gemm_table.TABLE. Measured on an H200 over the 12 weights,
# geometric means against cuBLAS (the figures of each alternative from one run; scripts
# in the issue's note):
# - M <= 64: gemm_swap_ab with a's rows as wgmma's N (8 for one row, else M rounded up
#   to 8), one consumer warpgroup, 8 stages, K split so that at most 132 blocks run, and
#   the tile's last block adding the partials (1.17x at M = 1, 1.12x at 16, 0.96x at
#   64). More blocks (264 or 528) were slower: the last block reads every partial alone.
# - M = 128 and 256: gemm_swap_ab with two consumer warpgroups (128 weight rows a
#   block) and 128 or 256 of a's rows, the partials added by `splitk_reduce` (0.78x at
#   128, 0.72x at 256; gemm_sm90 with 64 x 64 tiles 0.74x and 0.55x, with 128 x 128
#   tiles 0.52x and 0.55x; the last-block sum 0.62x at 256).
# - larger M: gemm_sm90's defaults, a cluster per pair of SMs.
gemm_table = load_table(ROOT)


def configuration(m, n, k, clusters, consts):
    """The kernel's call for an (m, k) x (n, k) GEMM: gemm_tn with `clusters` and
    `consts` where either is given, else the table's."""
    if clusters is not None or consts is not None:
        return tn_call(m, n, k, clusters or SMS // 2, consts or "")
    plan = gemm_table.plan(m, n, k, SMS)
    consts = ", ".join(f"{name} = {value}" for name, value in plan.consts.items())
    if plan.kernel == "tn":
        return tn_call(m, n, k, plan.clusters, consts)
    return swap_call(m, n, k, plan, consts)


def tn_call(m, n, k, clusters, consts):
    """gemm_tn's call with `clusters` and the const arguments `consts` ("A = 1, B = 2")."""
    extra = f", {consts}" if consts else ""
    return f"    gemm_tn({m}, {n}, {k}, a, b, c, {clusters}{extra});\n"


def swap_call(m, n, k, plan, consts):
    """gemm_swap_ab's call with the plan's splits (and its workspace and counters), then
    `splitk_reduce` where the partials are left to it (LAST = 0)."""
    call = (
        f"    let ws = zeros(f32, ({plan.splits}, {m}, {n}));\n"
        f"    let tickets = zeros(i32, {plan.tickets});\n"
        f"    gemm_swap_ab({m}, {n}, {k}, a, b, c, {plan.splits}, ws, tickets, {consts});\n"
    )
    if plan.reduce:
        call += f"    splitk_reduce({m}, {n}, ws, c, S = {plan.splits});\n"
    return call


LINE = re.compile(
    r"^bench (sweep_\S+) \.\.\. ([0-9.]+) ms, ([0-9.]+) TFLOP/s; cuBLAS ([0-9.]+) TFLOP/s.*?([0-9.]+)% of cuBLAS"
)


def bench_block(m, n, k, call):
    name = f"sweep_m{m}_n{n}_k{k}"
    return (
        f"bench {name} {{\n"
        f"    let a = randn(bf16, ({m}, {k}));\n"
        f"    let b = randn(bf16, ({n}, {k}));\n"
        f"    let c = empty(bf16, ({m}, {n}));\n"
        + call
        + f"    report flops = 2 * {m} * {n} * {k}, against cublas(a, transpose(b));\n"
        f"}}\n"
    )


def kernels(root):
    """Both examples' kernels, without their tests, benches and tune blocks (and the
    second's `use` lines, which repeat the first's)."""
    with open(os.path.join(root, "cuk-examples", "gemm_sm90.cuk")) as source:
        text = source.read()
    text = text[: text.index("\n// Four cluster tiles")] + "\n"
    with open(os.path.join(root, "cuk-examples", "gemm_small_m_sm90.cuk")) as source:
        small = source.read()
    small = small[small.index("\nkernel gemm_swap_ab") : small.index("\n// One row, one split")]
    return text + small + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cukc", default="target/release/cukc")
    parser.add_argument("--m", default=",".join(map(str, SIZES_M)))
    parser.add_argument("--clusters", type=int, help="clusters for every call (default: the table's)")
    parser.add_argument("--consts", help="const arguments for every call (default: the table's)")
    parser.add_argument("--keep", help="also write the generated bench file here")
    args = parser.parse_args()
    sizes = [int(m) for m in args.m.split(",")]
    text = kernels(ROOT)
    shapes = [(m, n, k) for (_, _, n, k) in WEIGHTS for m in sizes]
    text += "\n".join(
        bench_block(m, n, k, configuration(m, n, k, args.clusters, args.consts)) for (m, n, k) in shapes
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
            ms, ours, theirs, ratio = (float(found.group(i)) for i in (2, 3, 4, 5))
            measured[found.group(1)] = (ms, ours, theirs, ratio / 100)
    if not measured:
        sys.stdout.write(run.stdout + run.stderr)
        sys.exit("gemm-sweep: no bench measured")
    print(
        f"{'model':<12} {'proj':<12} {'M':>6} {'N':>6} {'K':>6} {'CuK TF/s':>9} {'cuBLAS':>9} "
        f"{'ratio':>7} {'weight GB/s':>12}"
    )
    ratios = []
    for model, projection, n, k in WEIGHTS:
        for m in sizes:
            entry = measured.get(f"sweep_m{m}_n{n}_k{k}")
            if entry is None:
                print(f"{model:<12} {projection:<12} {m:>6} {n:>6} {k:>6}   (not measured)")
                continue
            ms, ours, theirs, ratio = entry
            ratios.append((ratio, model, projection, m))
            # The weight's bytes over the kernel's time.
            weight = n * k * 2 / (ms * 1e-3) / 1e9
            print(
                f"{model:<12} {projection:<12} {m:>6} {n:>6} {k:>6} {ours:9.1f} {theirs:9.1f} "
                f"{ratio:7.3f} {weight:12.0f}"
            )
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
