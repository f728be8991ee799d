#!/usr/bin/env python3
"""PyTorch's scaled_dot_product_attention on the GPU, timed per backend, as the baseline
for the CuK attention example's benches (scripts/gpu-check.sh runs it beside them).

    scripts/sdpa-baseline.py [--batch B] [--heads H] [--seqlen S] [--head-dim D] [--dtype bf16|f16] [--backward]

Prints one line per backend that runs, forward TFLOP/s (4 B H S^2 D, halved for causal)
for causal and non-causal, on random inputs, then the best of each. With --backward, the
backward pass instead (dq, dk and dv from a saved forward, as FlashAttention counts it:
2.5 times the forward's operations), the baseline of cuk-examples/attention_bwd_sm90.cuk.
"""
import argparse

import torch
from torch.nn.attention import SDPBackend, sdpa_kernel
from torch.nn.functional import scaled_dot_product_attention

BACKENDS = {
    "flash": SDPBackend.FLASH_ATTENTION,
    "cudnn": SDPBackend.CUDNN_ATTENTION,
    "efficient": SDPBackend.EFFICIENT_ATTENTION,
}


def milliseconds(run, repeats=20):
    """The median time of `run` over `repeats` calls, after two warm-up calls."""
    for _ in range(2):
        run()
    times = []
    for _ in range(repeats):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        run()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return sorted(times)[len(times) // 2]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--batch", type=int, default=2)
    parser.add_argument("--heads", type=int, default=16)
    parser.add_argument("--seqlen", type=int, default=8192)
    parser.add_argument("--head-dim", type=int, default=128)
    parser.add_argument("--dtype", choices=["bf16", "f16"], default="bf16")
    parser.add_argument("--backward", action="store_true")
    args = parser.parse_args()
    dtype = torch.bfloat16 if args.dtype == "bf16" else torch.float16
    shape = (args.batch, args.heads, args.seqlen, args.head_dim)
    q, k, v = (torch.randn(shape, device="cuda", dtype=dtype, requires_grad=args.backward) for _ in range(3))
    flops = 4 * args.batch * args.heads * args.seqlen**2 * args.head_dim
    if args.backward:
        flops = flops * 5 // 2
    direction = "backward" if args.backward else "forward"
    print(f"sdpa {direction} {args.dtype} batch {args.batch} heads {args.heads} seqlen {args.seqlen} head_dim {args.head_dim}")
    best = {}
    for causal in (False, True):
        work = flops / 2 if causal else flops
        for name, backend in BACKENDS.items():
            try:
                with sdpa_kernel(backend):
                    if args.backward:
                        out = scaled_dot_product_attention(q, k, v, is_causal=causal)
                        grad = torch.randn_like(out)

                        def run():
                            torch.autograd.grad(out, (q, k, v), grad, retain_graph=True)

                        time = milliseconds(run)
                    else:
                        time = milliseconds(lambda: scaled_dot_product_attention(q, k, v, is_causal=causal))
            except RuntimeError as error:
                print(f"  {name:9} causal={causal}: not available ({str(error).splitlines()[0][:80]})")
                continue
            tflops = work / time / 1e9
            print(f"  {name:9} causal={causal}: {time:.3f} ms, {tflops:.1f} TFLOP/s")
            if tflops > best.get(causal, ("", 0.0))[1]:
                best[causal] = (name, tflops)
    for causal, (name, tflops) in best.items():
        print(f"best torch causal={causal}: {tflops:.1f} TFLOP/s ({name})")


if __name__ == "__main__":
    main()
