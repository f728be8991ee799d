"""The inference GEMM's configuration by M: which kernel computes ``y = x @ w.T`` (x (m, k)
activations, w (n, k) a linear layer's weight) and with which const arguments, for the two
examples ``cuk-examples/gemm_small_m_sm90.cuk`` (``gemm_swap_ab``, and ``splitk_reduce``
after it where it leaves the partials) and ``cuk-examples/gemm_sm90.cuk`` (``gemm_tn``).

This is the one table: ``cuk.linear`` launches what it says, and
``scripts/gemm-sweep.py`` benches what it says (the script loads this file by its path,
so it needs neither torch nor the package's extension: keep it to the standard
library). The script's comments give the measurements behind each row.
"""

import dataclasses

# (largest M, kernel, const arguments): the first row whose largest M is at least M.
# "swap" is gemm_swap_ab, a's rows as wgmma's N (BA of them a block: without BA in the
# row, M rounded up to 8, and 8 for one row), K split so that about one block an SM
# streams the weight; "tn" is gemm_tn with its defaults, a cluster a pair of SMs.
TABLE = [
    (64, "swap", {"WG": 1, "STAGES": 8, "LAST": 1}),
    (128, "swap", {"BA": 128, "WG": 2, "STAGES": 6, "LAST": 0}),
    (256, "swap", {"BA": 256, "WG": 2, "STAGES": 4, "LAST": 0}),
    (None, "tn", {}),
]

# gemm_swap_ab's k-tile and weight rows per consumer warpgroup.
_BK = 64
_ROWS_PER_WARPGROUP = 64


@dataclasses.dataclass(frozen=True)
class Plan:
    """The launches for one shape: ``kernel`` ("swap" or "tn") with ``consts``; for
    "swap" the K ``splits``, whether ``splitk_reduce`` (S = splits) follows (``reduce``)
    and the length of the ``tickets`` counters; for "tn" the ``clusters``."""

    kernel: str
    consts: dict
    splits: int = 1
    reduce: bool = False
    tickets: int = 0
    clusters: int = 0


def plan(m, n, k, sms):
    """The launches for an (m, k) x (n, k) GEMM on a GPU of ``sms`` multiprocessors."""
    for largest, kernel, consts in TABLE:
        if largest is None or m <= largest:
            break
    if kernel == "tn":
        return Plan("tn", dict(consts), clusters=max(1, sms // 2))
    consts = {"BA": 8 if m == 1 else -(-m // 8) * 8, **consts}
    tiles = -(-n // (_ROWS_PER_WARPGROUP * consts["WG"])) * -(-m // consts["BA"])
    splits = max(1, min(-(-k // _BK), sms // tiles))
    return Plan(
        "swap",
        consts,
        splits=splits,
        reduce=consts["LAST"] == 0 and splits > 1,
        tickets=tickets(m, n),
    )


def tickets(m, n):
    """The length of gemm_swap_ab's ``tickets``: a counter per tile of the smallest
    tiles (64 weight rows by 8 of a's), so one zeroed buffer serves every configuration."""
    return -(-n // 64) * -(-m // 8)
