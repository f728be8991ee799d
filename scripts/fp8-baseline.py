#!/usr/bin/env python3
"""cuBLAS's FP8 GEMM through PyTorch (`torch._scaled_mm`, per-tensor scales, e4m3 inputs,
bf16 output, "TN": a (m, k) row-major times b (n, k) row-major transposed) at the shapes
cuk-examples/gemm_fp8_sm90.cuk benches, with the bf16 GEMM (`torch.mm`) beside it, on
random inputs. scripts/gpu-check.sh runs it after the benches, so the figures come from
the same machine and run.

    scripts/fp8-baseline.py
"""

import torch

from cuda_timing import median_ms


def main():
    for size in (4096, 8192):
        m = n = k = size
        a = torch.randn(m, k, device="cuda").to(torch.float8_e4m3fn)
        b = torch.randn(n, k, device="cuda").to(torch.float8_e4m3fn)
        one = torch.tensor(1.0, device="cuda")
        fp8 = lambda: torch._scaled_mm(a, b.t(), scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
        a16, b16 = a.to(torch.bfloat16), b.to(torch.bfloat16)
        bf16 = lambda: torch.mm(a16, b16.t())
        flops = 2 * m * n * k
        for name, fn in (("torch._scaled_mm e4m3", fp8), ("torch.mm bf16", bf16)):
            ms = median_ms(fn, warmup=10, runs=50)
            print(f"{name:<24} {size}^3 {ms:8.4f} ms {flops / ms / 1e9:8.1f} TFLOP/s")


if __name__ == "__main__":
    main()
