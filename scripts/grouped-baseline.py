#!/usr/bin/env python3
"""PyTorch's grouped GEMM (`torch._grouped_mm`, bf16, CUTLASS underneath on Hopper) at the
shapes cuk-examples/gemm_grouped_sm90.cuk benches, on random inputs: each expert's weight
stored (G, N, K) and read transposed, as the example reads it. The contiguous layout is
A (G * M, K) with the groups' end offsets; the masked one is A (G, M, K), every group
full (the benches' counts are all M). scripts/gpu-check.sh runs it after the benches, so
the figures come from the same machine and run. Without `torch._grouped_mm` (PyTorch
before 2.8), or when it refuses this GPU, it says so and exits 1.

    scripts/grouped-baseline.py
"""

import sys

import torch

from cuda_timing import median_ms

# (name, experts, rows an expert, N, K): the example's benches.
SHAPES = (
    ("qwen3_30b_a3b", 128, 512, 1536, 2048),
    ("8x4096", 8, 4096, 4096, 7168),
)


def main():
    grouped_mm = getattr(torch, "_grouped_mm", None)
    if grouped_mm is None:
        print(f"torch {torch.__version__} has no torch._grouped_mm (PyTorch 2.8 or later)", file=sys.stderr)
        return 1
    if not torch.cuda.is_available():
        print("no CUDA device for torch", file=sys.stderr)
        return 1
    for name, groups, rows, n, k in SHAPES:
        b = torch.randn(groups, n, k, device="cuda", dtype=torch.bfloat16)
        packed = torch.randn(groups * rows, k, device="cuda", dtype=torch.bfloat16)
        ends = torch.arange(1, groups + 1, device="cuda", dtype=torch.int32) * rows
        masked = packed.view(groups, rows, k)
        contiguous = lambda: grouped_mm(packed, b.transpose(-2, -1), offs=ends)
        batched = lambda: grouped_mm(masked, b.transpose(-2, -1))
        flops = 2 * groups * rows * n * k
        for layout, fn in (("contiguous", contiguous), ("masked", batched)):
            try:
                ms = median_ms(fn, warmup=10, runs=50)
            except (RuntimeError, TypeError) as error:
                print(f"torch._grouped_mm refused the {layout} layout here: {error}", file=sys.stderr)
                return 1
            print(
                f"torch._grouped_mm bf16 {layout:<10} {name:<14} "
                f"{groups} x {rows} x {n} x {k} {ms:8.4f} ms {flops / ms / 1e9:8.1f} TFLOP/s"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
