#!/usr/bin/env python3
"""The baselines of cuk-examples/attention_decode_sm90.cuk's benches, in one run: torch's
scaled_dot_product_attention of one query per sequence over the dense KV (each backend
that runs), a device-to-device copy of as many bytes, and, when the `cuk` package is
importable, cuk.decode over the same tokens in pages of 64 scattered over the cache.

    scripts/decode-baseline.py [--batch 32 64 128] [--context 4096 16384 32768]
                               [--heads 32] [--kv-heads 8] [--head-dim 128] [--examples cuk-examples]
    scripts/decode-baseline.py --mla [--heads 16 128] [--batch ...] [--context ...]

Each line gives milliseconds and GB/s of KV bytes read (batch * context * kv_heads *
head_dim * 2 bytes * 2, K and V), as the benches report them. With --mla, the shapes of
`mla_decode`'s benches: one latent KV head of 576 values a token whose first 512 are V
(batch * context * 576 * 2 bytes, read once), the query heads given by --heads.
"""
import argparse
import os
import sys

import torch
from torch.nn.attention import SDPBackend, sdpa_kernel
from torch.nn.functional import scaled_dot_product_attention

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cuda_timing import median_ms  # noqa: E402

BACKENDS = {
    "flash": SDPBackend.FLASH_ATTENTION,
    "cudnn": SDPBackend.CUDNN_ATTENTION,
    "efficient": SDPBackend.EFFICIENT_ATTENTION,
    "math": SDPBackend.MATH,
}
PAGE = 64


def line(what, ms, kv_bytes):
    print(f"  {what:24} {ms:8.3f} ms  {kv_bytes / ms / 1e6:7.0f} GB/s")


def sdpa_lines(kv_bytes, attend):
    """A line for each SDPA backend that runs `attend`, or says why it does not."""
    for name, backend in BACKENDS.items():
        try:
            with sdpa_kernel(backend):
                ms = median_ms(attend)
        except RuntimeError as error:
            print(f"  sdpa {name:19} not available ({str(error).splitlines()[0][:70]})")
            continue
        line(f"sdpa {name}", ms, kv_bytes)


def memcpy_line(kv_bytes):
    """memcpy: a copy reads and writes, so half the KV bytes copied move all of them."""
    source = torch.empty(kv_bytes // 2, dtype=torch.uint8, device="cuda")
    target = torch.empty_like(source)
    line("memcpy (same bytes)", median_ms(lambda: target.copy_(source)), kv_bytes)


def shape_run(args, batch, context, decode):
    heads, kv_heads, d = args.heads, args.kv_heads, args.head_dim
    kv_bytes = batch * context * kv_heads * d * 2 * 2
    print(f"decode batch {batch} context {context} heads {heads} kv_heads {kv_heads} head_dim {d}: {kv_bytes / 1e9:.2f} GB of KV")
    q = torch.randn(batch, heads, 1, d, device="cuda", dtype=torch.bfloat16)
    k = torch.randn(batch, kv_heads, context, d, device="cuda", dtype=torch.bfloat16)
    v = torch.randn_like(k)
    sdpa_lines(kv_bytes, lambda: scaled_dot_product_attention(q, k, v, enable_gqa=heads != kv_heads))
    del k, v
    memcpy_line(kv_bytes)
    if decode is None:
        return
    pages = batch * context // PAGE
    k_cache = torch.randn(pages, PAGE, kv_heads, d, device="cuda", dtype=torch.bfloat16)
    v_cache = torch.randn_like(k_cache)
    block_table = torch.randperm(pages, device="cuda").to(torch.int32).reshape(batch, context // PAGE)
    seqlens = torch.full((batch,), context, dtype=torch.int32, device="cuda")
    qd = q.reshape(batch, heads, d)
    for splits in sorted({None, *args.splits}, key=lambda s: -1 if s is None else s):
        run = lambda: decode(qd, k_cache, v_cache, block_table, seqlens, splits=splits, check=False)  # noqa: B023,E731
        label = f"cuk.decode splits {splits or 'auto'}"
        line(label, median_ms(run), kv_bytes)


def mla_run(batch, context, heads):
    """torch's SDPA over MLA's dense latent cache: every query head attends the one KV head,
    V the first 512 values of K's rows (a view, as the kernel reads them)."""
    kv_bytes = batch * context * 576 * 2
    print(f"mla batch {batch} context {context} heads {heads}: {kv_bytes / 1e9:.2f} GB of KV")
    q = torch.randn(batch, heads, 1, 576, device="cuda", dtype=torch.bfloat16)
    kv = torch.randn(batch, 1, context, 576, device="cuda", dtype=torch.bfloat16)
    v = kv[..., :512]
    sdpa_lines(kv_bytes, lambda: scaled_dot_product_attention(q, kv, v, scale=192**-0.5, enable_gqa=True))
    del kv, v
    memcpy_line(kv_bytes)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--batch", type=int, nargs="+", default=[32, 64, 128])
    parser.add_argument("--context", type=int, nargs="+", default=[4096, 16384, 32768])
    parser.add_argument("--heads", type=int, nargs="+", default=None)
    parser.add_argument("--mla", action="store_true")
    parser.add_argument("--kv-heads", type=int, default=8)
    parser.add_argument("--head-dim", type=int, default=128)
    parser.add_argument("--splits", type=int, nargs="*", default=[1, 2, 4, 8])
    parser.add_argument("--examples", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cuk-examples"))
    args = parser.parse_args()
    if args.mla:
        for heads in args.heads or [16, 128]:
            for batch in args.batch:
                for context in args.context:
                    mla_run(batch, context, heads)
                    torch.cuda.empty_cache()
        return
    args.heads = (args.heads or [32])[0]
    try:
        import cuk.decode

        decode = cuk.decode.PagedAttention(args.examples)
    except ImportError as error:
        print(f"cuk not importable ({error}): torch and memcpy only")
        decode = None
    for batch in args.batch:
        for context in args.context:
            shape_run(args, batch, context, decode)
            torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
