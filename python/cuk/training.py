"""PyTorch autograd operators over the memory-bound training kernels of ``cuk-examples/``:
RMSNorm, LayerNorm and cross-entropy, forward and backward.

    import cuk.training
    ops = cuk.training.Ops("cuk-examples")        # the folder holding the .cuk files
    y = ops.rms_norm(x, w, eps=1e-6)              # differentiable in x and w
    z = ops.layer_norm(x, w, b, eps=1e-5)         # ... in x, w and b
    loss = ops.cross_entropy(logits, labels, ignore_index=-100, label_smoothing=0.1)

Rows are the last dimension (leading ones are flattened); x, w and b share a dtype (bf16,
f16 or f32), the statistics are f32. Each call picks the kernels' const parameters from
the row length (``THREADS`` threads of 128-bit vectors, a tile ``COLS`` holding the row)
and compiles that instantiation once (``Kernel.specialize``, through the disk cache).
The cross-entropy is the mean over the rows whose label is not ``ignore_index``, as
``torch.nn.functional.cross_entropy`` gives it; the forward's one pass writes the
gradient too, which the backward scales by the loss's gradient over the rows counted (one
elementwise pass: the count stays on the GPU, so no launch waits for it). Importing this
module needs torch.
"""

import os

import torch

import cuk
from cuk._specializing import Specializing

_DTYPES = {torch.bfloat16: "bf16", torch.float16: "f16", torch.float32: "f32"}
# The forward kernels stage a row in shared memory and read it back a sweep at a time:
# a thread holds four 128-bit vectors of it (fewer threads a row put more rows in flight
# on an SM), at most 32 values, and the staged row at most 64 KiB (x, weights and biases
# fit a block's shared memory). Longer rows take the looped kernels.
_FORWARD_VECTORS = 4
_MAX_FORWARD_VALUES = 32
_MAX_STAGED_ROW = 64 * 1024
# The backward kernels keep their gradient shares in registers: two vectors a thread, at
# most 16 values (more spill).
_BACKWARD_VECTORS = 2
_MAX_BACKWARD_VALUES = 16
# The shared memory the backward kernels' row stages may take: two stages of x and dy (a
# row fetched while another is used) where they fit, one otherwise.
_STAGED_BYTES = 160 * 1024


def _row_shape(n, itemsize, vectors):
    """``(THREADS, COLS, values a thread holds)`` for rows of ``n``: threads double from a
    warp until ``vectors`` 128-bit vectors each cover the row, at most 1024."""
    vector = 16 // itemsize
    threads = 32
    while threads < 1024 and threads * vector * vectors < n:
        threads *= 2
    step = threads * vector
    cols = -(-n // step) * step
    return threads, cols, cols // threads


def _fits_forward(shape, itemsize):
    """Whether the staged forward kernels take rows of this ``_row_shape``."""
    _, cols, values = shape
    return values <= _MAX_FORWARD_VALUES and cols * itemsize <= _MAX_STAGED_ROW


class Ops(Specializing):
    """The operators, over the examples in ``examples`` (a folder), compiled for the first
    GPU (``target=`` picks another) or run on the CPU emulator (``emulate=True``, CPU
    tensors)."""

    def __init__(self, examples, *, target=None, emulate=False):
        options = {"emulate": True} if emulate else {"target": target}
        load = lambda name: cuk.load(os.path.join(examples, name), **options)  # noqa: E731
        super().__init__(
            {
                "rmsnorm": load("rmsnorm.cuk"),
                "layernorm": load("layernorm.cuk"),
                "cross_entropy": load("cross_entropy.cuk"),
            }
        )

    def rms_norm(self, x, w, eps=1e-6):
        """``x / sqrt(mean(x²) + eps) * w`` over the last dimension."""
        return _RMSNorm.apply(self, x, w, eps)

    def layer_norm(self, x, w, b, eps=1e-5):
        """``(x - mean) / sqrt(var + eps) * w + b`` over the last dimension."""
        return _LayerNorm.apply(self, x, w, b, eps)

    def cross_entropy(self, logits, labels, ignore_index=-100, label_smoothing=0.0):
        """The mean cross-entropy of ``logits`` (rows, classes) against ``labels`` (rows)."""
        return _CrossEntropy.apply(self, logits, labels, ignore_index, label_smoothing)


def _rows(x, *vectors):
    """``x`` as a contiguous (rows, n) matrix, with its dtype's name and row shape;
    ``vectors`` (weights, biases) must be n values of x's dtype."""
    if x.dtype not in _DTYPES:
        raise ValueError(f"the kernels take bf16, f16 or f32, not {x.dtype}")
    rows = x.reshape(-1, x.shape[-1]).contiguous()
    for vector in vectors:
        if vector.dtype != x.dtype or vector.shape != (x.shape[-1],):
            raise ValueError(
                f"weights and biases are {x.shape[-1]} values of {x.dtype}, not {tuple(vector.shape)} of {vector.dtype}"
            )
    return rows, _DTYPES[x.dtype], _row_shape(rows.shape[1], x.element_size(), _FORWARD_VECTORS)


def _partials(rows):
    """How many blocks the backward runs: two an SM on a GPU, a few on the emulator."""
    if rows.is_cuda:
        per_gpu = 2 * torch.cuda.get_device_properties(rows.device).multi_processor_count
    else:
        per_gpu = 4
    return max(1, min(rows.shape[0], per_gpu))


def _stages(cols, itemsize):
    """How many rows of x and dy the backward kernels stage in shared memory."""
    return 2 if 2 * 2 * cols * itemsize <= _STAGED_BYTES else 1


def _backward_shape(rows, what):
    """The backward kernels' ``(THREADS, COLS)`` for ``rows``, or a ValueError when a
    thread's share of a row would not fit its registers."""
    threads, cols, values = _row_shape(rows.shape[1], rows.element_size(), _BACKWARD_VECTORS)
    if values > _MAX_BACKWARD_VALUES:
        raise ValueError(f"{what}: rows of more than {_MAX_BACKWARD_VALUES} values a thread do not fit the registers")
    return threads, cols


class _RMSNorm(torch.autograd.Function):
    @staticmethod
    def forward(ctx, ops, x, w, eps):
        rows, dtype, shape = _rows(x, w)
        threads, cols, _ = shape
        y = torch.empty_like(rows)
        rstd = torch.empty(rows.shape[0], dtype=torch.float32, device=x.device)
        if _fits_forward(shape, rows.element_size()):
            ops.kernel("rmsnorm", "rmsnorm_fwd", T=dtype, COLS=cols, THREADS=threads)(eps, rows, w, y, rstd)
        else:
            ops.kernel("rmsnorm", "rmsnorm_fwd_looped", T=dtype)(eps, rows, w, y, rstd)
        ctx.save_for_backward(rows, w, rstd)
        ctx.ops, ctx.shape, ctx.dtype = ops, x.shape, dtype
        return y.reshape(x.shape)

    @staticmethod
    def backward(ctx, dy):
        rows, w, rstd = ctx.saved_tensors
        threads, cols = _backward_shape(rows, "rms_norm's backward")
        dy = dy.reshape(rows.shape).contiguous()
        dx = torch.empty_like(rows)
        partial = torch.empty(_partials(rows), rows.shape[1], dtype=torch.float32, device=rows.device)
        dw = torch.empty_like(w)
        stages = _stages(cols, rows.element_size())
        bwd = ctx.ops.kernel("rmsnorm", "rmsnorm_bwd", T=ctx.dtype, COLS=cols, THREADS=threads, STAGES=stages)
        bwd(rows, w, rstd, dy, dx, partial)
        ctx.ops.kernel("rmsnorm", "rmsnorm_dw", T=ctx.dtype)(partial, dw)
        return None, dx.reshape(ctx.shape), dw, None


class _LayerNorm(torch.autograd.Function):
    @staticmethod
    def forward(ctx, ops, x, w, b, eps):
        rows, dtype, shape = _rows(x, w, b)
        threads, cols, _ = shape
        if not _fits_forward(shape, rows.element_size()):
            raise ValueError(
                f"layer_norm: rows of {rows.shape[1]} do not fit a block's shared memory (at most {_MAX_STAGED_ROW} bytes)"
            )
        y = torch.empty_like(rows)
        mean = torch.empty(rows.shape[0], dtype=torch.float32, device=x.device)
        rstd = torch.empty_like(mean)
        fwd = ops.kernel("layernorm", "layernorm_fwd", T=dtype, COLS=cols, THREADS=threads)
        fwd(eps, rows, w, b, y, mean, rstd)
        ctx.save_for_backward(rows, w, mean, rstd)
        ctx.ops, ctx.shape, ctx.dtype = ops, x.shape, dtype
        return y.reshape(x.shape)

    @staticmethod
    def backward(ctx, dy):
        rows, w, mean, rstd = ctx.saved_tensors
        threads, cols = _backward_shape(rows, "layer_norm's backward")
        dy = dy.reshape(rows.shape).contiguous()
        dx = torch.empty_like(rows)
        shape = (_partials(rows), rows.shape[1])
        dw_partial = torch.empty(shape, dtype=torch.float32, device=rows.device)
        db_partial = torch.empty_like(dw_partial)
        dw, db = torch.empty_like(w), torch.empty_like(w)
        stages = _stages(cols, rows.element_size())
        bwd = ctx.ops.kernel("layernorm", "layernorm_bwd", T=ctx.dtype, COLS=cols, THREADS=threads, STAGES=stages)
        bwd(rows, w, mean, rstd, dy, dx, dw_partial, db_partial)
        ctx.ops.kernel("layernorm", "layernorm_dwdb", T=ctx.dtype)(dw_partial, db_partial, dw, db)
        return None, dx.reshape(ctx.shape), dw, db, None


class _CrossEntropy(torch.autograd.Function):
    @staticmethod
    def forward(ctx, ops, logits, labels, ignore_index, label_smoothing):
        if logits.dim() != 2 or labels.shape != logits.shape[:1]:
            raise ValueError(
                f"cross_entropy takes logits (rows, classes) and one label a row, not {tuple(logits.shape)} and {tuple(labels.shape)}"
            )
        rows, dtype, shape = _rows(logits)
        threads, cols, _ = shape
        labels32 = labels.to(torch.int32).contiguous()
        loss = torch.empty(rows.shape[0], dtype=torch.float32, device=logits.device)
        dlogits = torch.empty_like(rows)
        args = (ignore_index, label_smoothing, 1.0, rows, labels32, loss, dlogits)
        if _fits_forward(shape, rows.element_size()):
            kernel = ops.kernel("cross_entropy", "cross_entropy_resident", T=dtype, COLS=cols, THREADS=threads)
            kernel(*args)
        else:
            ops.kernel("cross_entropy", "cross_entropy_looped", T=dtype)(*args)
        counted = (labels != ignore_index).sum().to(torch.float32)
        ctx.save_for_backward(dlogits, counted)
        return loss.sum() / counted

    @staticmethod
    def backward(ctx, grad):
        dlogits, counted = ctx.saved_tensors
        # The scale in f32: 1 / rows counted rounded to bf16 would be off by up to 0.4%.
        scaled = (dlogits.to(torch.float32) * (grad / counted)).to(dlogits.dtype)
        return None, scaled, None, None, None
