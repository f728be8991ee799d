"""A PyTorch operator for the inference GEMM ``y = x @ w.T`` (``F.linear``'s layout, no
bias) over ``cuk-examples/gemm_small_m_sm90.cuk`` and ``cuk-examples/gemm_sm90.cuk``.

    import cuk.linear
    linear = cuk.linear.Linear("cuk-examples")     # the folder holding both .cuk files
    y = linear(x, w)                               # x (..., k), w (n, k): y (..., n)

x's leading dimensions are flattened into m rows. ``cuk.gemm_table`` picks the kernel and
its const arguments by m, as ``scripts/gemm-sweep.py`` benches them: up to 256 rows,
``gemm_swap_ab`` (the weight's rows as wgmma's M, K split so that about one block an SM
streams the weight), its partials added by the tile's last block (m <= 64) or by
``splitk_reduce`` launched after it; more rows, ``gemm_tn`` with a cluster a pair of SMs.
bf16 or f16, x and w of one dtype on one device; k a multiple of 8 (TMA's 16-byte rows),
and n too above 256 rows (gemm_tn stores y with TMA). Views are made contiguous (and
copied when they do not start on 16 bytes). A shape or dtype the kernels do not take is
a ValueError before anything is launched.

The operator keeps one buffer of zeroed tile counters (``tickets``) a device, grown as
needed, which every launch of gemm_swap_ab leaves at zero: its launches on one device
must be ordered (one stream at a time). No autograd: y has no gradient. Importing this
module needs torch.
"""

import os

import torch

import cuk
from cuk import gemm_table
from cuk._specializing import Specializing

_DTYPES = {torch.bfloat16: "bf16", torch.float16: "f16"}
_SMALL = "gemm_small_m_sm90.cuk"
_LARGE = "gemm_sm90.cuk"
# The multiprocessors the table plans for on the CPU emulator: few, so that small
# shapes still split K.
_EMULATED_SMS = 8


class Linear(Specializing):
    """The operator, over the examples in ``examples`` (a folder), compiled for the first
    GPU (``target=`` picks another) or run on the CPU emulator (``emulate=True``, CPU
    tensors)."""

    def __init__(self, examples, *, target=None, emulate=False):
        options = {"emulate": True} if emulate else {"target": target}
        super().__init__(
            {
                "small": cuk.load(os.path.join(examples, _SMALL), **options),
                "large": cuk.load(os.path.join(examples, _LARGE), **options),
            }
        )
        self._tickets = {}

    def __call__(self, x, w):
        """``x @ w.T`` over x's last dimension, in x's dtype (f32 accumulation)."""
        m, n, k = _shapes(x, w)
        y = torch.empty(m, n, dtype=x.dtype, device=x.device)
        if k == 0:
            y.zero_()
        elif m and n:
            self._launch(_operand(x.reshape(m, k)), _operand(w), y)
        return y.view(*x.shape[:-1], n)

    def _launch(self, x, w, y):
        """The table's launches for ``y = x @ w.T``, all three 2-D and contiguous."""
        (m, k), n = x.shape, w.shape[0]
        dtype = _DTYPES[x.dtype]
        plan = gemm_table.plan(m, n, k, _sms(x.device))
        if plan.kernel == "tn":
            if n % 8:
                raise ValueError(f"above 256 rows of x, gemm_tn stores y with TMA: n is a multiple of 8, not {n}")
            self.kernel("large", "gemm_tn", T=dtype)(m, n, k, x, w, y, plan.clusters)
            return
        ws = torch.empty(plan.splits, m, n, dtype=torch.float32, device=x.device)
        gemm = self.kernel("small", "gemm_swap_ab", T=dtype, **plan.consts)
        gemm(m, n, k, x, w, y, plan.splits, ws, self._counters(x.device, plan.tickets))
        if plan.reduce:
            self.kernel("small", "splitk_reduce", S=plan.splits, T=dtype)(m, n, ws, y)

    def _counters(self, device, length):
        """The device's first ``length`` tile counters, all zero between launches."""
        counters = self._tickets.get(device)
        if counters is None or counters.numel() < length:
            counters = torch.zeros(length, dtype=torch.int32, device=device)
            self._tickets[device] = counters
        return counters[:length]


def _shapes(x, w):
    """``(m, n, k)``, or ValueError naming what the kernels do not take."""
    if x.dim() < 1 or w.dim() != 2 or x.shape[-1] != w.shape[1]:
        raise ValueError(
            f"linear takes x (..., k) and w (n, k) with one k, not {tuple(x.shape)} and {tuple(w.shape)}"
        )
    if x.dtype not in _DTYPES or w.dtype != x.dtype:
        raise ValueError(f"the kernels take bf16 or f16 x and w of one dtype, not {x.dtype} and {w.dtype}")
    if x.device != w.device:
        raise ValueError(f"x and w are on one device, not {x.device} and {w.device}")
    n, k = w.shape
    if k % 8:
        raise ValueError(f"k is a multiple of 8 (16-byte rows for TMA), not {k}")
    return x.shape[:-1].numel(), n, k


def _operand(tensor):
    """``tensor`` contiguous and starting on 16 bytes, as TMA reads it."""
    tensor = tensor.contiguous()
    return tensor if tensor.data_ptr() % 16 == 0 else tensor.clone()


def _sms(device):
    """The device's multiprocessors (a few on the CPU emulator)."""
    if device.type != "cuda":
        return _EMULATED_SMS
    return torch.cuda.get_device_properties(device).multi_processor_count
