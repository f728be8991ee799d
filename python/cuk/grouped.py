"""PyTorch operators over ``cuk-examples/gemm_grouped_sm90.cuk``: the grouped GEMMs of a
mixture-of-experts layer, each expert's rows times its own weight, in one launch.

    import cuk.grouped
    grouped = cuk.grouped.GroupedGemm("cuk-examples")     # the folder holding the .cuk file
    d = grouped.contiguous(a, w, offsets)                  # (total_m, n)
    d = grouped.masked(a, w, counts)                       # (groups, max_m, n)

``w`` is (groups, n, k), each expert's weight as ``F.linear`` stores it. The contiguous
layout packs every expert's rows in ``a`` (total_m, k): expert g owns rows
``offsets[g]..offsets[g + 1]`` (int32, groups + 1 of them, from 0, never decreasing, ending
at most at total_m), and ``d[rows of g] = a[rows of g] @ w[g].T``; rows after the last
offset are zero. The masked layout gives each expert a buffer ``a[g]`` (max_m, k) of which
the first ``counts[g]`` rows count: ``d[g, :counts[g]] = a[g, :counts[g]] @ w[g].T``, and
the rest of ``d[g]`` is zero. bf16 or f16; k and n multiples of 8 (TMA's 16-byte rows).

Before the launch the offsets or counts are checked (a synchronisation; ``check=False``
leaves it out): a ValueError names the element otherwise. Importing this module needs
torch.
"""

import os

import torch

import cuk
from cuk._specializing import Specializing

_DTYPES = {torch.bfloat16: "bf16", torch.float16: "f16"}
_FILE = "gemm_grouped_sm90.cuk"
# The example's blocks a cluster (its CM).
_CLUSTER = 2


class GroupedGemm(Specializing):
    """The operators, over the example in ``examples`` (a folder), compiled for the first
    GPU (``target=`` picks another) or run on the CPU emulator (``emulate=True``, CPU
    tensors)."""

    def __init__(self, examples, *, target=None, emulate=False):
        options = {"emulate": True} if emulate else {"target": target}
        super().__init__({"grouped": cuk.load(os.path.join(examples, _FILE), **options)})

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
