"""A PyTorch autograd operator over the Hopper attention examples of ``cuk-examples/``:
``attention_fwd_sm90.cuk`` forward, ``attention_bwd_sm90.cuk`` backward.

    import cuk.attention
    attend = cuk.attention.Attention("cuk-examples")     # the folder holding the .cuk files
    o = attend(q, k, v, causal=True)                     # differentiable in q, k and v
    o = attend(q, k, v, deterministic=True)              # dq summed in a fixed order

q is (batch, heads, seqlen, d) and k and v are (batch, kv_heads, seqlen, d), as
``torch.nn.functional.scaled_dot_product_attention`` takes them; kv_heads divides heads
(grouped-query attention, ``enable_gqa=True`` in torch's terms), the softmax scale is
``1 / sqrt(d)``, and with ``causal`` query i sees keys up to i. bf16 or f16; d = 64 or
128 for both directions, 256 for the forward only. The forward keeps each row's
log-sum-exp (f32), from which the backward recomputes the probabilities: three kernels,
the row-wise ``rowsum(dO * O)``, the gradients (dq accumulated in an f32 workspace), and
dq's conversion; with ``deterministic=True`` the key blocks add into each tile of dq in a
fixed order, so that two runs give the same bits (at some cost in speed). Each (dtype, d, causal) instantiation compiles once (``Kernel.specialize``,
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


def _shapes(q, k, v):
    """``(batch, heads, kv_heads, seqlen, d)`` of q, k and v, or ValueError naming what
    does not fit the kernels."""
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
    if q.dtype not in _DTYPES or k.dtype != q.dtype or v.dtype != q.dtype:
        raise ValueError(f"the kernels take bf16 or f16 q, k and v of one dtype, not {q.dtype}, {k.dtype}, {v.dtype}")
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
        if d == 256:
            raise NotImplementedError("attention's backward takes head dimension 64 or 128 (dk and dv stay in registers)")
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
        consts = {"T": dtype, "D": d, "CAUSAL": int(ctx.causal), "DETERMINISTIC": int(ctx.deterministic)}
        attend.kernel("bwd", "attention_bwd", **consts)(
            kf.shape[0], heads // kv_heads, seqlen, qf, kf, vf, dof, lse_log2, delta, dq_accum, dq_turns, dk, dv, scale
        )
        attend.kernel("bwd", "attention_bwd_convert", T=dtype, D=d)(rows, seqlen, dq_accum, dq, scale)
        q_shape = (batch, heads, seqlen, d)
        kv_shape = (batch, kv_heads, seqlen, d)
        return None, dq.reshape(q_shape), dk.reshape(kv_shape), dv.reshape(kv_shape), None, None
