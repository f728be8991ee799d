"""A PyTorch autograd operator over the Hopper attention examples of ``cuk-examples/``:
``attention_fwd_sm90.cuk`` forward, ``attention_bwd_sm90.cuk`` backward.

    import cuk.attention
    attend = cuk.attention.Attention("cuk-examples")     # the folder holding the .cuk files
    o = attend(q, k, v, causal=True)                     # differentiable in q, k and v
    o = attend(q, k, v, deterministic=True)              # dq summed in a fixed order
    o = attend.varlen(q, k, v, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k, causal=True)
    o = attend.fp8(q8, k8, v8, q_scale, k_scale, v_scale, causal=True)   # e4m3 in, bf16 out

q is (batch, heads, seqlen, d) and k and v are (batch, kv_heads, seqlen, d), as
``torch.nn.functional.scaled_dot_product_attention`` takes them; kv_heads divides heads
(grouped-query attention, ``enable_gqa=True`` in torch's terms), the softmax scale is
``1 / sqrt(d)``, and with ``causal`` query i sees keys up to i. bf16 or f16; d = 64,
128 or 256. The forward keeps each row's
log-sum-exp (f32), from which the backward recomputes the probabilities: three kernels,
the row-wise ``rowsum(dO * O)``, the gradients (dq accumulated in an f32 workspace), and
dq's conversion; with ``deterministic=True`` the key blocks add into each tile of dq in a
fixed order, so that two runs give the same bits (at some cost in speed). ``varlen``
takes packed batches of sequences of any lengths, as FlashAttention's varlen functions do
(the ``_varlen`` kernels of the same files). ``fp8`` runs the FP8 forward
(``attention_fwd_fp8``) on ``float8_e4m3fn`` q, k and v with per-tensor descale factors. Each (dtype, d, causal) instantiation compiles once (``Kernel.specialize``,
through the disk cache). Needs an sm_90 GPU (the kernels use TMA and wgmma); importing this
module needs torch.
"""

import math
import os

import torch

import cuk
from cuk._specializing import Specializing

_DTYPES = {torch.bfloat16: "bf16", torch.float16: "f16"}
_LOG2_E = 1.4426950408889634


class Attention(Specializing):
    """The operator, over the examples in ``examples`` (a folder), compiled for the first
    GPU (``target=`` picks another); ``kernel("fwd" or "bwd", name, **consts)`` gives
    their kernels."""

    def __init__(self, examples, *, target=None):
        load = lambda name: cuk.load(os.path.join(examples, name), target=target)  # noqa: E731
        super().__init__({"fwd": load("attention_fwd_sm90.cuk"), "bwd": load("attention_bwd_sm90.cuk")})

    def __call__(self, q, k, v, causal=False, deterministic=False):
        """``softmax(q kᵀ / sqrt(d)) v`` over each (batch, head)."""
        return _Attention.apply(self, q, k, v, causal, deterministic)

    def varlen(self, q, k, v, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k, causal=False, deterministic=False):
        """Attention over a packed batch, as FlashAttention's ``flash_attn_varlen_func``
        takes it: q (total_q, heads, d), k and v (total_k, kv_heads, d), sequence b being
        rows ``cu_seqlens_q[b]:cu_seqlens_q[b + 1]`` of q and ``cu_seqlens_k[b]:
        cu_seqlens_k[b + 1]`` of k and v (int32 offsets), the longest sequences
        ``max_seqlen_q`` and ``max_seqlen_k`` long. With ``causal`` the mask is aligned
        to each sequence's bottom right (query i of sq sees key j of sk when j <= i + sk
        - sq); a query that sees no key gives 0. Returns o packed as q; differentiable
        in q, k and v. The offsets are checked on the host first (a ValueError naming
        the parameter), which waits for them to be on it."""
        _check_varlen(q, k, v, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k)
        offsets = (cu_seqlens_q.contiguous(), cu_seqlens_k.contiguous(), int(max_seqlen_q), int(max_seqlen_k))
        return _AttentionVarlen.apply(self, q, k, v, offsets, causal, deterministic)

    def fp8(self, q, k, v, q_scale, k_scale, v_scale, causal=False):
        """The FP8 forward (``attention_fwd_fp8``, FlashAttention-3's FP8 path):
        ``softmax(q kᵀ / sqrt(d)) v`` of the dequantized ``q_scale * q``, ``k_scale * k``
        and ``v_scale * v`` (per-tensor descale factors, numbers), q, k and v
        ``float8_e4m3fn`` shaped as for ``__call__``; returns o in bf16. Not
        differentiable. The kernel takes v transposed (the keys contiguous, as an FP8
        wgmma's B operand must be), each row padded with zeros to a multiple of 16 keys
        and each 16 keys in the order its P has them: this makes that copy."""
        batch, heads, kv_heads, seqlen, d = _shapes(q, k, v, fp8=True)
        qf = q.reshape(batch * heads, seqlen, d).contiguous()
        kf = k.reshape(batch * kv_heads, seqlen, d).contiguous()
        s_v = -(-seqlen // 16) * 16
        # Bytes for the transposing copy (torch's float8 copies are younger than its uint8 ones).
        v_t = torch.zeros(batch * kv_heads, d, s_v, dtype=torch.uint8, device=v.device)
        v_t[:, :, :seqlen] = v.reshape(batch * kv_heads, seqlen, d).view(torch.uint8).transpose(1, 2)
        # Key 8 a + 2 b + c of each 16 at place 4 b + 2 a + c (the example's comment says why).
        v_t = v_t.view(batch * kv_heads, d, s_v // 16, 2, 4, 2).transpose(3, 4).reshape(batch * kv_heads, d, s_v)
        o = torch.empty(batch * heads, seqlen, d, dtype=torch.bfloat16, device=q.device)
        lse = torch.empty(batch * heads, seqlen, dtype=torch.float32, device=q.device)
        # Keys a tile: 128, and 64 at d = 256 (S and O in registers).
        consts = {"D": d, "CAUSAL": int(bool(causal))}
        if d == 256:
            consts["BN"] = 64
        fwd = self.kernel("fwd", "attention_fwd_fp8", **consts)
        scale = 1.0 / math.sqrt(d)
        fwd(
            batch * kv_heads, heads // kv_heads, seqlen, qf, kf, s_v, v_t.view(torch.float8_e4m3fn), o, lse,
            scale * _LOG2_E, float(q_scale), float(k_scale), float(v_scale),
        )  # fmt: skip
        return o.reshape(batch, heads, seqlen, d)


def _shapes(q, k, v, fp8=False):
    """``(batch, heads, kv_heads, seqlen, d)`` of q, k and v, or ValueError naming what
    does not fit the kernels (``fp8``: the FP8 forward's)."""
    if q.dim() != 4 or k.dim() != 4 or v.shape != k.shape:
        raise ValueError(
            "attention takes q (batch, heads, seqlen, d) and k and v (batch, kv_heads, seqlen, d), "
            f"not {tuple(q.shape)}, {tuple(k.shape)} and {tuple(v.shape)}"
        )
    batch, heads, seqlen, d = q.shape
    kv_heads = k.shape[1]
    if k.shape[0] != batch or k.shape[2] != seqlen or k.shape[3] != d or heads % kv_heads != 0:
        raise ValueError(
            f"k and v {tuple(k.shape)} must have q's batch, seqlen and d and a number of heads dividing "
            f"q's {heads} (q is {tuple(q.shape)})"
        )
    allowed, names = ({torch.float8_e4m3fn}, "float8_e4m3fn") if fp8 else (_DTYPES, "bf16 or f16")
    if q.dtype not in allowed or k.dtype != q.dtype or v.dtype != q.dtype:
        raise ValueError(f"the kernels take {names} q, k and v of one dtype, not {q.dtype}, {k.dtype}, {v.dtype}")
    if d not in (64, 128, 256):
        raise ValueError(f"the kernels take head dimension 64, 128 or 256, not {d}")
    return batch, heads, kv_heads, seqlen, d


def _padded(seqlen):
    """The backward's workspaces' rows: whole tiles of 64."""
    return -(-seqlen // 64) * 64


class _Attention(torch.autograd.Function):
    @staticmethod
    def forward(ctx, attend, q, k, v, causal, deterministic):
        batch, heads, kv_heads, seqlen, d = _shapes(q, k, v)
        dtype = _DTYPES[q.dtype]
        qf = q.reshape(batch * heads, seqlen, d).contiguous()
        kf = k.reshape(batch * kv_heads, seqlen, d).contiguous()
        vf = v.reshape(batch * kv_heads, seqlen, d).contiguous()
        o = torch.empty_like(qf)
        lse = torch.empty(batch * heads, seqlen, dtype=torch.float32, device=q.device)
        # Keys a tile: 192 fits shared memory at d = 64 and 128, 80 at 256.
        consts = {"T": dtype, "D": d, "CAUSAL": int(bool(causal))}
        if d == 256:
            consts["BN"] = 80
        fwd = attend.kernel("fwd", "attention_fwd", **consts)
        scale = 1.0 / math.sqrt(d)
        fwd(batch * kv_heads, heads // kv_heads, seqlen, qf, kf, vf, o, lse, scale * _LOG2_E)
        ctx.save_for_backward(qf, kf, vf, o, lse)
        ctx.attend, ctx.causal, ctx.deterministic = attend, bool(causal), bool(deterministic)
        ctx.shapes = (batch, heads, kv_heads, seqlen, d)
        return o.reshape(q.shape)

    @staticmethod
    def backward(ctx, d_out):
        qf, kf, vf, o, lse = ctx.saved_tensors
        batch, heads, kv_heads, seqlen, d = ctx.shapes
        dtype = _DTYPES[qf.dtype]
        attend = ctx.attend
        dof = d_out.reshape(qf.shape).contiguous()
        rows, padded = qf.shape[0], _padded(seqlen)
        f32 = {"dtype": torch.float32, "device": qf.device}
        lse_log2 = torch.empty(rows, padded, **f32)
        delta = torch.empty(rows, padded, **f32)
        dq_accum = torch.empty(rows, padded, d, **f32)
        dq_turns = torch.empty(rows, padded // 64, dtype=torch.int32, device=qf.device)
        dq, dk, dv = torch.empty_like(qf), torch.empty_like(kf), torch.empty_like(vf)
        scale = 1.0 / math.sqrt(d)
        attend.kernel("bwd", "attention_bwd_preprocess", T=dtype, D=d)(
            rows, seqlen, o, dof, lse, lse_log2, delta, dq_accum, dq_turns
        )
        consts = {"T": dtype, "CAUSAL": int(ctx.causal), "DETERMINISTIC": int(ctx.deterministic)}
        if d == 256:
            # dk and dv no longer fit attention_bwd's registers: a tiling of its own.
            gradients = attend.kernel("bwd", "attention_bwd_hd256", **consts)
        else:
            gradients = attend.kernel("bwd", "attention_bwd", D=d, **consts)
        gradients(
            kf.shape[0], heads // kv_heads, seqlen, qf, kf, vf, dof, lse_log2, delta, dq_accum, dq_turns, dk, dv, scale
        )
        attend.kernel("bwd", "attention_bwd_convert", T=dtype, D=d)(rows, seqlen, dq_accum, dq, scale)
        q_shape = (batch, heads, seqlen, d)
        kv_shape = (batch, kv_heads, seqlen, d)
        return None, dq.reshape(q_shape), dk.reshape(kv_shape), dv.reshape(kv_shape), None, None


def _check_varlen(q, k, v, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k):
    """ValueError naming what of a packed batch the kernels cannot take."""
    if q.dim() != 3 or k.dim() != 3 or v.shape != k.shape:
        raise ValueError(
            "attention varlen takes q (total_q, heads, d) and k and v (total_k, kv_heads, d), "
            f"not {tuple(q.shape)}, {tuple(k.shape)} and {tuple(v.shape)}"
        )
    heads, kv_heads, d = q.shape[1], k.shape[1], q.shape[2]
    if k.shape[2] != d or heads % kv_heads != 0:
        raise ValueError(f"k and v {tuple(k.shape)} must have q's d and a number of heads dividing q's {heads}")
    allowed, names = ({torch.float8_e4m3fn}, "float8_e4m3fn") if fp8 else (_DTYPES, "bf16 or f16")
    if q.dtype not in allowed or k.dtype != q.dtype or v.dtype != q.dtype:
        raise ValueError(f"the kernels take {names} q, k and v of one dtype, not {q.dtype}, {k.dtype}, {v.dtype}")
    if d not in (64, 128, 256):
        raise ValueError(f"the kernels take head dimension 64, 128 or 256, not {d}")
    lengths = {}
    for name, cu, tokens, longest in (
        ("cu_seqlens_q", cu_seqlens_q, q.shape[0], max_seqlen_q),
        ("cu_seqlens_k", cu_seqlens_k, k.shape[0], max_seqlen_k),
    ):
        if cu.dtype != torch.int32 or cu.dim() != 1 or cu.numel() < 2:
            raise ValueError(f"`{name}` is an int32 vector of batch + 1 offsets, not {cu.dtype} of shape {tuple(cu.shape)}")
        offsets = cu.tolist()
        if offsets[0] != 0:
            raise ValueError(f"`{name}` starts at 0, not {offsets[0]}")
        if offsets[-1] != tokens:
            raise ValueError(f"`{name}` ends at the number of tokens, {tokens}, not {offsets[-1]}")
        steps = [b - a for a, b in zip(offsets, offsets[1:])]
        if min(steps) < 0:
            at = steps.index(min(steps))
            raise ValueError(f"`{name}` never decreases; it goes from {offsets[at]} to {offsets[at + 1]} at sequence {at}")
        if max(steps) > longest:
            raise ValueError(f"`max_seqlen_{name[-1]}` = {longest} is shorter than sequence {steps.index(max(steps))} ({max(steps)})")
        lengths[name] = len(offsets)
    if lengths["cu_seqlens_q"] != lengths["cu_seqlens_k"]:
        raise ValueError(
            f"`cu_seqlens_q` and `cu_seqlens_k` describe one batch: {lengths['cu_seqlens_q']} and "
            f"{lengths['cu_seqlens_k']} offsets"
        )


class _AttentionVarlen(torch.autograd.Function):
    @staticmethod
    def forward(ctx, attend, q, k, v, offsets, causal, deterministic):
        cu_q, cu_k, max_q, max_k = offsets
        (total_q, heads, d), (total_k, kv_heads, _) = q.shape, k.shape
        batch = cu_q.numel() - 1
        dtype = _DTYPES[q.dtype]
        q, k, v = q.contiguous(), k.contiguous(), v.contiguous()
        o = torch.empty_like(q)
        lse = torch.empty(heads, total_q, dtype=torch.float32, device=q.device)
        consts = {"T": dtype, "D": d, "CAUSAL": int(bool(causal))}
        if d == 256:
            consts["BN"] = 80
        fwd = attend.kernel("fwd", "attention_fwd_varlen", **consts)
        scale = 1.0 / math.sqrt(d)
        group = heads // kv_heads
        fwd(batch, kv_heads, group, total_q, total_k, max_q, cu_q, cu_k, q, k, v, o, lse, scale * _LOG2_E)
        ctx.save_for_backward(q, k, v, o, lse, cu_q, cu_k)
        ctx.attend, ctx.causal, ctx.deterministic = attend, bool(causal), bool(deterministic)
        ctx.lengths = (max_q, max_k)
        return o

    @staticmethod
    def backward(ctx, d_out):
        q, k, v, o, lse, cu_q, cu_k = ctx.saved_tensors
        (total_q, heads, d), (total_k, kv_heads, _) = q.shape, k.shape
        max_q, max_k = ctx.lengths
        batch = cu_q.numel() - 1
        dtype = _DTYPES[q.dtype]
        attend = ctx.attend
        dof = d_out.contiguous()
        # Each sequence's rows padded to whole tiles of 64 (attention_bwd_preprocess_varlen).
        padded = _padded(total_q) + 64 * batch
        f32 = {"dtype": torch.float32, "device": q.device}
        lse_log2 = torch.empty(heads, padded, **f32)
        delta = torch.empty(heads, padded, **f32)
        dq_accum = torch.empty(heads, padded, d, **f32)
        dq_turns = torch.empty(heads, padded // 64, dtype=torch.int32, device=q.device)
        dq, dk, dv = torch.empty_like(q), torch.empty_like(k), torch.empty_like(v)
        scale = 1.0 / math.sqrt(d)
        attend.kernel("bwd", "attention_bwd_preprocess_varlen", T=dtype, D=d)(
            batch, heads, total_q, max_q, cu_q, o, dof, lse, lse_log2, delta, dq_accum, dq_turns
        )
        consts = {"T": dtype, "CAUSAL": int(ctx.causal), "DETERMINISTIC": int(ctx.deterministic)}
        if d == 256:
            # attention_bwd_hd256's tiling, for packed batches.
            gradients = attend.kernel("bwd", "attention_bwd_hd256_varlen", **consts)
        else:
            gradients = attend.kernel("bwd", "attention_bwd_varlen", D=d, **consts)
        gradients(
            batch, kv_heads, heads // kv_heads, total_q, total_k, max_k, cu_q, cu_k,
            q, k, v, dof, lse_log2, delta, dq_accum, dq_turns, dk, dv, scale,
        )
        attend.kernel("bwd", "attention_bwd_convert_varlen", T=dtype, D=d)(
            batch, heads, total_q, max_q, cu_q, dq_accum, dq, scale
        )
        return None, dq, dk, dv, None, None, None
