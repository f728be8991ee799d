#!/usr/bin/env python3
"""PyTorch's grouped GEMMs at the shapes cuk-examples/gemm_grouped_sm90.cuk and
gemm_grouped_fp8_sm90.cuk bench, on random inputs: each expert's weight stored (G, N, K)
and read transposed, as the examples read it. The contiguous layout is A (G * M, K) with
the groups' end offsets; the masked one is A (G, M, K), every group full (the benches'
counts are all M). scripts/gpu-check.sh runs it after the benches, so the figures come
from the same machine and run.

bf16: `torch._grouped_mm` (CUTLASS underneath on Hopper). FP8 (e4m3, D in bf16), the
first of these that this torch has and accepts, each line saying which ran:
`torch._scaled_grouped_mm` (rowwise scales, one launch), `torch._scaled_mm` once per
group (per-tensor scales, G launches), or bf16 `torch._grouped_mm` over the dequantized
inputs (no FP8 at all: a floor, not a baseline). None of them takes DeepGEMM's blockwise
scales, which the example applies. Without any (PyTorch before 2.8), or when torch
refuses this GPU, it says so and exits 1.

    scripts/grouped-baseline.py
"""

import sys

import torch

from cuda_timing import median_ms

# (name, experts, rows an expert, N, K): the examples' benches.
SHAPES = (
    ("qwen3_30b_a3b", 128, 512, 1536, 2048),
    ("8x4096", 8, 4096, 4096, 7168),
    ("8x4096_n7168_k2048", 8, 4096, 7168, 2048),
)


def report(label, layout, name, shape, fn):
    """Times `fn` and prints a line; False (and says why) when torch refuses it."""
    groups, rows, n, k = shape
    try:
        ms = median_ms(fn, warmup=10, runs=50)
    except (RuntimeError, TypeError) as error:
        print(f"{label} refused the {layout} layout here: {error}", file=sys.stderr)
        return False
    flops = 2 * groups * rows * n * k
    print(f"{label} {layout:<10} {name:<18} {groups} x {rows} x {n} x {k} {ms:8.4f} ms {flops / ms / 1e9:8.1f} TFLOP/s")
    return True


def fp8_candidates(a, w, ends, rows):
    """(label, contiguous call, masked call) of each FP8 grouped GEMM torch may have, in
    order of preference."""
    groups, n, k = w.shape
    w_t = w.transpose(-2, -1)
    masked = a.view(groups, rows, k)
    candidates = []
    scaled_grouped_mm = getattr(torch, "_scaled_grouped_mm", None)
    if scaled_grouped_mm is not None:
        rows_scale = torch.ones(groups * rows, device="cuda")
        columns_scale = torch.ones(groups, n, device="cuda")
        candidates.append((
            "torch._scaled_grouped_mm e4m3",
            lambda: scaled_grouped_mm(a, w_t, rows_scale, columns_scale, offs=ends, out_dtype=torch.bfloat16),
            lambda: scaled_grouped_mm(
                masked, w_t, rows_scale.view(groups, rows), columns_scale, out_dtype=torch.bfloat16
            ),
        ))  # fmt: skip
    if hasattr(torch, "_scaled_mm"):
        one = torch.ones((), device="cuda")

        def per_group(blocks):
            return [
                torch._scaled_mm(blocks[g], w_t[g], scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
                for g in range(groups)
            ]

        contiguous_blocks = [a[g * rows : (g + 1) * rows] for g in range(groups)]
        candidates.append((
            "torch._scaled_mm e4m3 per group",
            lambda: per_group(contiguous_blocks),
            lambda: per_group(masked),
        ))  # fmt: skip
    grouped_mm = getattr(torch, "_grouped_mm", None)
    if grouped_mm is not None:
        a16, w16 = a.to(torch.bfloat16), w_t.to(torch.bfloat16)
        candidates.append((
            "torch._grouped_mm bf16 of dequantized e4m3",
            lambda: grouped_mm(a16, w16, offs=ends),
            lambda: grouped_mm(a16.view(groups, rows, k), w16),
        ))  # fmt: skip
    return candidates


def main():
    if not torch.cuda.is_available():
        print("no CUDA device for torch", file=sys.stderr)
        return 1
    grouped_mm = getattr(torch, "_grouped_mm", None)
    if grouped_mm is None:
        print(f"torch {torch.__version__} has no torch._grouped_mm (PyTorch 2.8 or later)", file=sys.stderr)
    ran_all = grouped_mm is not None
    for name, groups, rows, n, k in SHAPES:
        shape = (groups, rows, n, k)
        ends = torch.arange(1, groups + 1, device="cuda", dtype=torch.int32) * rows
        if grouped_mm is not None:
            b = torch.randn(groups, n, k, device="cuda", dtype=torch.bfloat16)
            packed = torch.randn(groups * rows, k, device="cuda", dtype=torch.bfloat16)
            masked = packed.view(groups, rows, k)
            for layout, fn in (
                ("contiguous", lambda: grouped_mm(packed, b.transpose(-2, -1), offs=ends)),
                ("masked", lambda: grouped_mm(masked, b.transpose(-2, -1))),
            ):
                ran_all &= report("torch._grouped_mm bf16", layout, name, shape, fn)
        a = torch.randn(groups * rows, k, device="cuda").to(torch.float8_e4m3fn)
        w = torch.randn(groups, n, k, device="cuda").to(torch.float8_e4m3fn)
        for layout, index in (("contiguous", 1), ("masked", 2)):
            ran = False
            for candidate in fp8_candidates(a, w, ends, rows):
                if report(candidate[0], layout, name, shape, candidate[index]):
                    ran = True
                    break
            if not ran:
                print(f"no FP8 grouped GEMM of this torch ({torch.__version__}) ran the {layout} layout", file=sys.stderr)
            ran_all &= ran
    return 0 if ran_all else 1


if __name__ == "__main__":
    sys.exit(main())
