"""A PyTorch operator over ``cuk-examples/attention_decode_sm90.cuk``: decode attention
over a paged KV cache, split over the context (flash-decoding) and merged.

    import cuk.decode
    decode = cuk.decode.PagedAttention("cuk-examples")       # the folder holding the .cuk file
    o = decode(q, k_cache, v_cache, block_table, seqlens)    # (batch, heads, d)
    o = cuk.decode.paged_attention(q, k_cache, v_cache, block_table, seqlens)  # $CUK_EXAMPLES

q is (batch, heads, d): one new token per sequence. k_cache and v_cache are (num_pages,
page_size, kv_heads, d), vLLM's layout: token t of sequence b is slot ``t % page_size`` of
page ``block_table[b, t / page_size]``, and sequence b has ``seqlens[b]`` tokens
(block_table (batch, max_pages) and seqlens (batch) are int32). Query head h reads key
head ``h // (heads // kv_heads)`` (grouped-query attention, groups of 1 to 8); the scale
is ``1 / sqrt(d)`` unless given. q bf16 or f16, d = 64 or 128; the caches of q's dtype,
or FP8 (``torch.float8_e4m3fn`` or ``torch.float8_e5m2``, both of one), read as
``k_scale * k_cache`` and ``v_scale * v_cache``: per-tensor scales as vLLM's fp8 KV
cache keeps them (floats, or one-element tensors, read once: a synchronisation for a
CUDA tensor), 1.0 unless given, and applied to any cache. ``splits`` (by default
enough for ``batch * kv_heads * splits`` blocks to fill the GPU a few times over) cuts
each sequence's pages into that many runs, each a block, merged by a second kernel.

Before the launch, every block-table entry must name a page of the cache and every
sequence length fit its row of the table (the kernel's ``require_range``): a ValueError
names the parameter, the element and the ``.cuk`` line otherwise. That check reads the
two small tensors (a synchronisation); ``check=False`` leaves it out. Importing this
module needs torch.
"""

import math
import os

import torch

import cuk
from cuk._specializing import Specializing

_DTYPES = {torch.bfloat16: "bf16", torch.float16: "f16"}
_FP8 = {torch.float8_e4m3fn: "e4m3", torch.float8_e5m2: "e5m2"}
_LOG2_E = 1.4426950408889634
_FILE = "attention_decode_sm90.cuk"


class PagedAttention(Specializing):
    """The operator, over the example in ``examples`` (a folder), compiled for the first
    GPU (``target=`` picks another) or run on the CPU emulator (``emulate=True``, CPU
    tensors)."""

    def __init__(self, examples, *, target=None, emulate=False):
        options = {"emulate": True} if emulate else {"target": target}
        self._path = os.path.join(examples, _FILE)
        super().__init__({"decode": cuk.load(self._path, **options)})
        with open(self._path, encoding="utf-8") as source:
            self._lines = source.read().splitlines()

    def __call__(
        self, q, k_cache, v_cache, block_table, seqlens, *, splits=None, scale=None, k_scale=1.0, v_scale=1.0,
        check=True,
    ):  # fmt: skip
        """``softmax(q (k_scale k)ᵀ · scale) (v_scale v)`` of each sequence's query against its
        cached tokens."""
        batch, heads, kv_heads, num_pages, page, max_pages, d = _shapes(q, k_cache, v_cache, block_table, seqlens)
        if check:
            self._check(block_table, "block_table", 0, num_pages)
            self._check(seqlens, "seqlens", 0, max_pages * page + 1)
        if splits is None:
            splits = default_splits(batch, kv_heads, q.device)
        if splits < 1:
            raise ValueError(f"splits is at least 1, not {splits}")
        group = heads // kv_heads
        dtype = _DTYPES[q.dtype]
        scale = 1.0 / math.sqrt(d) if scale is None else float(scale)
        k_scale, v_scale = _scalar(k_scale, "k_scale"), _scalar(v_scale, "v_scale")
        caches = {"KV": _FP8[k_cache.dtype]} if k_cache.dtype in _FP8 else {}
        f32 = {"dtype": torch.float32, "device": q.device}
        o_part = torch.empty(batch, heads, splits, d, **f32)
        lse_part = torch.empty(batch, heads, splits, **f32)
        o = torch.empty_like(q)
        decode = self.kernel("decode", "paged_decode", T=dtype, D=d, GROUP=group, PAGE=page, **caches)
        decode(
            batch, kv_heads, num_pages, max_pages, splits,
            q.contiguous(), k_cache.contiguous(), v_cache.contiguous(),
            block_table.contiguous(), seqlens.contiguous(),
            o_part, lse_part, scale * _LOG2_E, k_scale, v_scale,
        )  # fmt: skip
        self.kernel("decode", "paged_combine", T=dtype, D=d)(batch, heads, splits, o_part, lse_part, o)
        return o

    def _check(self, tensor, name, low, high):
        """ValueError at the ``require_range`` line unless every element lies in low..high."""
        outside = (tensor < low) | (tensor >= high)
        if bool(outside.any()):
            at = tuple(int(i) for i in outside.nonzero()[0])
            line = next(
                (n + 1 for n, text in enumerate(self._lines) if f"require_range({name}," in text),
                0,
            )
            index = ", ".join(map(str, at))
            raise ValueError(
                f"{self._path}:{line}: `paged_decode`: `{name}[{index}]` = {int(tensor[at])} is outside "
                f"{low}..{high}, the range the kernel requires of it"
            )


def _shapes(q, k_cache, v_cache, block_table, seqlens):
    """``(batch, heads, kv_heads, num_pages, page_size, max_pages, d)``, or ValueError
    naming what does not fit the kernels."""
    if q.dim() != 3 or k_cache.dim() != 4 or v_cache.shape != k_cache.shape:
        raise ValueError(
            "paged attention takes q (batch, heads, d) and k_cache and v_cache (num_pages, page_size, kv_heads, d), "
            f"not {tuple(q.shape)}, {tuple(k_cache.shape)} and {tuple(v_cache.shape)}"
        )
    batch, heads, d = q.shape
    num_pages, page, kv_heads, cache_d = k_cache.shape
    if cache_d != d or heads % kv_heads != 0 or not 1 <= heads // kv_heads <= 8:
        raise ValueError(
            f"the caches {tuple(k_cache.shape)} must have q's d and a number of key heads dividing q's {heads} "
            f"heads into groups of 1 to 8 (q is {tuple(q.shape)})"
        )
    if q.dtype not in _DTYPES or v_cache.dtype != k_cache.dtype or k_cache.dtype not in (q.dtype, *_FP8):
        raise ValueError(
            "the kernels take bf16 or f16 q and caches of q's dtype or of one FP8 dtype (float8_e4m3fn, "
            f"float8_e5m2), not {q.dtype}, {k_cache.dtype}, {v_cache.dtype}"
        )
    if d not in (64, 128):
        raise ValueError(f"the kernels take head dimension 64 or 128, not {d}")
    if block_table.dim() != 2 or block_table.shape[0] != batch or seqlens.shape != (batch,):
        raise ValueError(
            f"block_table is (batch, max_pages) and seqlens (batch) for q's batch of {batch}, "
            f"not {tuple(block_table.shape)} and {tuple(seqlens.shape)}"
        )
    if block_table.dtype != torch.int32 or seqlens.dtype != torch.int32:
        raise ValueError(f"block_table and seqlens are int32, not {block_table.dtype} and {seqlens.dtype}")
    return batch, heads, kv_heads, num_pages, page, block_table.shape[1], d


def _scalar(value, name):
    """A scale as a float: a number, or the value of a one-element float tensor;
    ValueError naming ``name`` otherwise."""
    if isinstance(value, torch.Tensor):
        if value.numel() != 1 or not value.dtype.is_floating_point:
            raise ValueError(
                f"{name} is a float or a one-element float tensor (one scale a tensor), "
                f"not a {value.dtype} tensor of shape {tuple(value.shape)}"
            )
        return float(value)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{name} is a float or a one-element float tensor, not {value!r}")
    return float(value)


def default_splits(batch, kv_heads, device):
    """Splits enough for ``batch * kv_heads * splits`` blocks to be about four per SM
    (1 on the CPU emulator)."""
    if device.type != "cuda":
        return 1
    sms = torch.cuda.get_device_properties(device).multi_processor_count
    return max(1, -(-4 * sms // (batch * kv_heads)))


_OPERATORS = {}


def paged_attention(q, k_cache, v_cache, block_table, seqlens, *, examples=None, **options):
    """``PagedAttention(examples)(q, k_cache, v_cache, block_table, seqlens, **options)``,
    the operator made once per folder and device; ``examples`` defaults to
    ``$CUK_EXAMPLES``."""
    examples = examples or os.environ.get("CUK_EXAMPLES")
    if not examples:
        raise ValueError("paged_attention needs the folder of attention_decode_sm90.cuk: examples= or $CUK_EXAMPLES")
    emulate = q.device.type != "cuda"
    key = (os.path.abspath(examples), emulate)
    if key not in _OPERATORS:
        _OPERATORS[key] = PagedAttention(examples, emulate=emulate)
    return _OPERATORS[key](q, k_cache, v_cache, block_table, seqlens, **options)
