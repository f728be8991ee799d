#!/usr/bin/env python3
"""PyTorch's speed on the memory-bound training kernels of issue 40, at the shapes the
examples bench (cuk-examples/rmsnorm.cuk, layernorm.cuk, softmax.cuk, cross_entropy.cuk):
eager and torch.compile, forward and backward, in GB/s counted as the examples count
them (one read of each input row and one write of each output, in bf16), with a
device-to-device copy of the same bytes beside them. scripts/gpu-check.sh runs it after
the benches, so the figures come from the same machine and run.

    scripts/norm-baselines.py [--no-compile]
"""

import argparse
import sys

import torch

from cuda_timing import median_ms
import torch.nn.functional as F


def copy_gbps(nbytes):
    """A device-to-device copy moving `nbytes` in all (half read, half written)."""
    source = torch.empty(nbytes // 2, dtype=torch.uint8, device="cuda")
    target = torch.empty_like(source)
    return nbytes / median_ms(lambda: target.copy_(source)) / 1e6


def report(name, nbytes, fn):
    ms = median_ms(fn)
    gbps = nbytes / ms / 1e6
    print(f"{name:<44} {ms:8.4f} ms {gbps:8.1f} GB/s  ({gbps / copy_gbps(nbytes):5.1%} of copy)")


def cases():
    """(name, bytes, make) for each measured operation; `make(compiled)` gives a
    callable that runs it once."""
    bf16 = torch.bfloat16
    out = []
    for m, n in [(32768, 4096), (16384, 8192)]:
        x = torch.randn(m, n, dtype=bf16, device="cuda")
        w = torch.randn(n, dtype=bf16, device="cuda")
        b = torch.randn(n, dtype=bf16, device="cuda")
        dy = torch.randn(m, n, dtype=bf16, device="cuda")
        rms = lambda x, w: F.rms_norm(x, (x.shape[-1],), w, 1e-6)
        ln = lambda x, w, b: F.layer_norm(x, (x.shape[-1],), w, b, 1e-5)
        sm = lambda x: torch.softmax(x, dim=-1)
        out.append((f"rmsnorm fwd {m}x{n}", 2 * m * n * 2, rms, (x, w)))
        out.append((f"layernorm fwd {m}x{n}", 2 * m * n * 2, ln, (x, w, b)))
        out.append((f"softmax fwd {m}x{n}", 2 * m * n * 2, sm, (x,)))
        out.append((f"rmsnorm fwd+bwd {m}x{n}", 5 * m * n * 2, ("backward", rms, dy), (x, w)))
        out.append((f"softmax fwd+bwd {m}x{n}", 5 * m * n * 2, ("backward", sm, dy), (x,)))
    for m, v in [(8192, 32768), (4096, 131072)]:
        logits = torch.randn(m, v, dtype=bf16, device="cuda")
        labels = torch.randint(0, v, (m,), device="cuda")
        ce = lambda z, t: F.cross_entropy(z.float(), t)
        out.append((f"cross_entropy fwd+bwd {m}x{v}", 2 * m * v * 2, ("backward_scalar", ce), (logits, labels)))
    return out


def runner(op, inputs, compiled):
    if isinstance(op, tuple) and op[0] == "backward":
        _, fn, grad = op
        fn = torch.compile(fn) if compiled else fn
        leaves = [t.detach().requires_grad_(t.dim() == 2) for t in inputs]

        def step():
            y = fn(*leaves)
            y.backward(grad)

        return step
    if isinstance(op, tuple) and op[0] == "backward_scalar":
        _, fn = op
        fn = torch.compile(fn) if compiled else fn
        leaves = [inputs[0].detach().requires_grad_(True), inputs[1]]
        return lambda: fn(*leaves).backward()
    fn = torch.compile(op) if compiled else op
    return lambda: fn(*inputs)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-compile", action="store_true", help="eager only")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        print("norm-baselines: no CUDA device", file=sys.stderr)
        return 1
    print(torch.cuda.get_device_name(), "torch", torch.__version__)
    for name, nbytes, op, inputs in cases():
        report(f"torch eager   {name}", nbytes, runner(op, inputs, False))
        if not args.no_compile:
            try:
                report(f"torch.compile {name}", nbytes, runner(op, inputs, True))
            except Exception as error:  # a compile failure is a figure missing, not a crash
                print(f"torch.compile {name}: failed ({type(error).__name__}: {error})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
