"""PyTorch operators over ``cuk-examples/gemm_grouped_sm90.cuk`` and
``gemm_grouped_fp8_sm90.cuk``: the grouped GEMMs of a mixture-of-experts layer, each
expert's rows times its own weight, in one launch.

    import cuk.grouped
    grouped = cuk.grouped.GroupedGemm("cuk-examples")     # the folder holding the .cuk files
    d = grouped.contiguous(a, w, offsets)                  # (total_m, n)
    d = grouped.masked(a, w, counts)                       # (groups, max_m, n)
    d = grouped.contiguous_fp8(a, w, offsets, scale_a, scale_w)   # bf16 (total_m, n)
    d = grouped.masked_fp8(a, w, counts, scale_a, scale_w)        # bf16 (groups, max_m, n)

``w`` is (groups, n, k), each expert's weight as ``F.linear`` stores it. The contiguous
layout packs every expert's rows in ``a`` (total_m, k): expert g owns rows
``offsets[g]..offsets[g + 1]`` (int32, groups + 1 of them, from 0, never decreasing, ending
at most at total_m), and ``d[rows of g] = a[rows of g] @ w[g].T``; rows after the last
offset are zero. The masked layout gives each expert a buffer ``a[g]`` (max_m, k) of which
the first ``counts[g]`` rows count: ``d[g, :counts[g]] = a[g, :counts[g]] @ w[g].T``, and
the rest of ``d[g]`` is zero. bf16 or f16; k and n multiples of 8 (TMA's 16-byte rows).

The FP8 forms take ``a`` and ``w`` of ``torch.float8_e4m3fn`` or ``torch.float8_e5m2``
(any pairing) with DeepGEMM's blockwise f32 scales, and give bf16: ``scale_a`` one per
row of ``a`` and 128 columns ((total_m, ceil(k / 128)) contiguous, (groups, max_m,
ceil(k / 128)) masked), ``scale_w`` one per expert and 128 x 128 block of its weight
((groups, ceil(n / 128), ceil(k / 128))); ``d[row, col]`` is the sum over the 128-column
blocks kb of ``scale_a[row, kb] * scale_w[g, col // 128, kb]`` times the block's products
(summed in f32). k a multiple of 16, n of 8.

Before the launch the offsets or counts are checked (a synchronisation; ``check=False``
leaves it out), and the scales' dtype and shapes: a ValueError names the element or the
parameter otherwise. Importing this module needs torch.
"""

import os

import torch

import cuk
from cuk._specializing import Specializing

_DTYPES = {torch.bfloat16: "bf16", torch.float16: "f16"}
_FP8 = {torch.float8_e4m3fn: "e4m3", torch.float8_e5m2: "e5m2"}
_FILE = "gemm_grouped_sm90.cuk"
_FP8_FILE = "gemm_grouped_fp8_sm90.cuk"
# The FP8 scales' blocks along k (and n, for the weights').
_BLOCK = 128
# The example's blocks a cluster (its CM).
_CLUSTER = 2


class GroupedGemm(Specializing):
    """The operators, over the example in ``examples`` (a folder), compiled for the first
    GPU (``target=`` picks another) or run on the CPU emulator (``emulate=True``, CPU
    tensors)."""

    def __init__(self, examples, *, target=None, emulate=False):
        options = {"emulate": True} if emulate else {"target": target}
        super().__init__(
            {
                "grouped": cuk.load(os.path.join(examples, _FILE), **options),
                "fp8": cuk.load(os.path.join(examples, _FP8_FILE), **options),
            }
        )

    def contiguous(self, a, w, offsets, *, check=True):
        """Each expert's packed rows of ``a`` times its weight's transpose."""
        groups, n, k = _weights(a, w, a.shape[-1])
        if a.dim() != 2 or offsets.shape != (groups + 1,) or offsets.dtype != torch.int32:
            raise ValueError(
                f"the contiguous layout takes a (total_m, k) and int32 offsets (groups + 1) = ({groups + 1},), "
                f"not {tuple(a.shape)} and {tuple(offsets.shape)} {offsets.dtype}"
            )
        total_m = a.shape[0]
        if check:
            _check_offsets(offsets, total_m)
        d = torch.zeros(total_m, n, dtype=a.dtype, device=a.device)
        kernel = self.kernel("grouped", "gemm_grouped_contiguous", T=_DTYPES[a.dtype])
        kernel(groups, total_m, n, k, offsets.contiguous(), a.contiguous(), w.contiguous(), d, _clusters(a.device))
        return d

    def masked(self, a, w, counts, *, check=True):
        """The first ``counts[g]`` rows of each expert's buffer ``a[g]`` times its weight's
        transpose."""
        groups, n, k = _weights(a, w, a.shape[-1])
        if a.dim() != 3 or a.shape[0] != groups or counts.shape != (groups,) or counts.dtype != torch.int32:
            raise ValueError(
                f"the masked layout takes a (groups, max_m, k) with w's {groups} groups and int32 counts ({groups},), "
                f"not {tuple(a.shape)} and {tuple(counts.shape)} {counts.dtype}"
            )
        max_m = a.shape[1]
        if check:
            _check_range(counts, "counts", 0, max_m)
        d = torch.zeros(groups, max_m, n, dtype=a.dtype, device=a.device)
        kernel = self.kernel("grouped", "gemm_grouped_masked", T=_DTYPES[a.dtype])
        kernel(groups, max_m, n, k, counts.contiguous(), a.contiguous(), w.contiguous(), d, _clusters(a.device))
        return d

    def contiguous_fp8(self, a, w, offsets, scale_a, scale_w, *, check=True):
        """Each expert's packed FP8 rows of ``a`` times its FP8 weight's transpose, scaled
        blockwise, in bf16."""
        groups, n, k = _fp8_weights(a, w)
        if a.dim() != 2 or offsets.shape != (groups + 1,) or offsets.dtype != torch.int32:
            raise ValueError(
                f"the contiguous layout takes a (total_m, k) and int32 offsets (groups + 1) = ({groups + 1},), "
                f"not {tuple(a.shape)} and {tuple(offsets.shape)} {offsets.dtype}"
            )
        total_m = a.shape[0]
        blocks = -(-k // _BLOCK)
        _check_scales(scale_a, "scale_a", (total_m, blocks))
        _check_scales(scale_w, "scale_w", (groups, -(-n // _BLOCK), blocks))
        if check:
            _check_offsets(offsets, total_m)
        d = torch.zeros(total_m, n, dtype=torch.bfloat16, device=a.device)
        kernel = self.kernel("fp8", "gemm_grouped_fp8_contiguous", TA=_FP8[a.dtype], TB=_FP8[w.dtype])
        kernel(
            groups, total_m, n, k, offsets.contiguous(), a.contiguous(), w.contiguous(), d,
            scale_a.contiguous(), scale_w.contiguous(), _clusters(a.device),
        )  # fmt: skip
        return d

    def masked_fp8(self, a, w, counts, scale_a, scale_w, *, check=True):
        """The first ``counts[g]`` FP8 rows of each expert's buffer ``a[g]`` times its FP8
        weight's transpose, scaled blockwise, in bf16."""
        groups, n, k = _fp8_weights(a, w)
        if a.dim() != 3 or a.shape[0] != groups or counts.shape != (groups,) or counts.dtype != torch.int32:
            raise ValueError(
                f"the masked layout takes a (groups, max_m, k) with w's {groups} groups and int32 counts ({groups},), "
                f"not {tuple(a.shape)} and {tuple(counts.shape)} {counts.dtype}"
            )
        max_m = a.shape[1]
        blocks = -(-k // _BLOCK)
        _check_scales(scale_a, "scale_a", (groups, max_m, blocks))
        _check_scales(scale_w, "scale_w", (groups, -(-n // _BLOCK), blocks))
        if check:
            _check_range(counts, "counts", 0, max_m)
        d = torch.zeros(groups, max_m, n, dtype=torch.bfloat16, device=a.device)
        kernel = self.kernel("fp8", "gemm_grouped_fp8_masked", TA=_FP8[a.dtype], TB=_FP8[w.dtype])
        kernel(
            groups, max_m, n, k, counts.contiguous(), a.contiguous(), w.contiguous(), d,
            scale_a.contiguous(), scale_w.contiguous(), _clusters(a.device),
        )  # fmt: skip
        return d


def _weights(a, w, k):
    """``(groups, n, k)`` of the weights, or ValueError naming what does not fit."""
    if w.dim() != 3 or w.shape[2] != k:
        raise ValueError(f"the weights are (groups, n, k) with a's k = {k}, not {tuple(w.shape)}")
    if a.dtype not in _DTYPES or w.dtype != a.dtype:
        raise ValueError(f"the kernels take bf16 or f16 a and w of one dtype, not {a.dtype} and {w.dtype}")
    groups, n, _ = w.shape
    if n % 8 or k % 8:
        raise ValueError(f"n and k are multiples of 8 (16-byte rows for TMA), not {n} and {k}")
    return groups, n, k


def _fp8_weights(a, w):
    """``(groups, n, k)`` of FP8 weights for FP8 ``a``, or ValueError naming what does not
    fit."""
    k = a.shape[-1]
    if w.dim() != 3 or w.shape[2] != k:
        raise ValueError(f"the weights are (groups, n, k) with a's k = {k}, not {tuple(w.shape)}")
    if a.dtype not in _FP8 or w.dtype not in _FP8:
        raise ValueError(
            f"the FP8 kernels take a and w of float8_e4m3fn or float8_e5m2, not {a.dtype} and {w.dtype}"
        )
    groups, n, _ = w.shape
    if n % 8 or k % 16:
        raise ValueError(f"n is a multiple of 8 and k of 16 (16-byte rows for TMA), not {n} and {k}")
    return groups, n, k


def _check_scales(scales, name, shape):
    """ValueError unless ``scales`` is an f32 tensor of ``shape``."""
    if scales.dtype != torch.float32 or tuple(scales.shape) != shape:
        raise ValueError(f"{name} is float32 of shape {shape}, not {scales.dtype} of {tuple(scales.shape)}")


def _check_offsets(offsets, total_m):
    """ValueError unless the offsets start at 0, never decrease and stay within total_m."""
    values = offsets.tolist()
    if values[0] != 0:
        raise ValueError(f"offsets[0] = {values[0]}: the first expert's rows start at 0")
    for g in range(1, len(values)):
        if values[g] < values[g - 1]:
            raise ValueError(f"offsets[{g}] = {values[g]} is less than offsets[{g - 1}] = {values[g - 1]}")
    if values[-1] > total_m:
        raise ValueError(f"offsets[{len(values) - 1}] = {values[-1]} is past a's {total_m} rows")


def _check_range(tensor, name, low, high):
    """ValueError unless every element lies in low..=high."""
    outside = (tensor < low) | (tensor > high)
    if bool(outside.any()):
        at = int(outside.nonzero()[0, 0])
        raise ValueError(f"{name}[{at}] = {int(tensor[at])} is outside {low}..={high}")


def _clusters(device):
    """One cluster a pair of SMs (2 on the CPU emulator)."""
    if device.type != "cuda":
        return 2
    return torch.cuda.get_device_properties(device).multi_processor_count // _CLUSTER
