"""``cuk.autotune``: ``cukc tune FILE`` from Python, with the same meaning.

    results = cuk.autotune("cuk-examples/gemm_sm90.cuk", tune="gemm_tn_quick")
    print(results[0].winners)            # {"gemm_tn_4096": TuneWinner(...)}
    mod = cuk.load("cuk-examples/gemm_sm90.cuk")
    mod.gemm_tn.tuned                    # the winner's values, and where they came from

Every point of the file's ``tune`` blocks (only block ``tune=`` when given) is compiled
on every core; points that fail a check or ptxas, or need more shared memory or registers
than the GPU has, are rejected; the rest are timed on the first GPU with the benches the
block names (a survey of every point, then each bench's eight fastest again with
warm-up, an L2 flush before every launch and the median). The table is printed (unless
``quiet=True``) and saved (``<stem>.<block>.tune.txt`` in the current folder, or
``report=``), and each bench's winner is stored in cukc's cache directory, keyed by the
source, the compiler, the GPU and the bench: ``cukc bench``, ``cukc run`` and ``cuk.load``
use it, and ``cuk.autotune`` finds what ``cukc tune`` stored and the other way round.

Without a GPU it raises ``RuntimeError`` at once; ``dry_run=True`` compiles every point
and reports which are valid, timing nothing and storing nothing (``cukc tune
--dry-run``). A block none of whose points compiles raises ``CompileError`` (E0236)
after every block is done and its table saved.
"""

from dataclasses import dataclass, field
from typing import Dict, List, Optional, Union

from . import _cuk


@dataclass(frozen=True)
class TuneRow:
    """One point of a block: its configuration, resources, and each bench's time."""

    index: int
    configuration: str
    values: Dict[str, Union[int, bool, str]]
    registers: Optional[int]
    shared_bytes: Optional[int]
    spilled_bytes: Optional[int]
    rejected: Optional[str]
    """Why the point was rejected (a failed check, ptxas, a resource), else ``None``."""
    times: Optional[Dict[str, Dict[str, object]]]
    """Per bench ``{"kernel_ms", "rate", "unit"}`` or ``{"failed": reason}``; ``None`` when
    the point was not timed (rejected, or a dry run)."""


@dataclass(frozen=True)
class TuneWinner:
    """A bench's fastest point, and the file it is stored in (``None`` if it could not be)."""

    row: int
    configuration: str
    kernel_ms: float
    stored: Optional[str]


@dataclass(frozen=True)
class TuneResult:
    """A ``tune`` block tuned: the rows of its table, its winners, and the table's text."""

    tune: str
    kernel: str
    benches: List[str]
    target: str
    gpu: Optional[str]
    rows: List[TuneRow]
    winners: Dict[str, TuneWinner]
    table: str
    report: Optional[str]
    """Where the table was saved."""
    valid: List[TuneRow] = field(init=False)
    """The rows that compiled within the limits."""

    def __post_init__(self):
        object.__setattr__(self, "valid", [row for row in self.rows if row.rejected is None])


def autotune(
    path,
    *,
    tune: Optional[str] = None,
    target: Optional[str] = None,
    report=None,
    dry_run: bool = False,
    kernel_timeout: Optional[float] = None,
    quiet: bool = False,
) -> List[TuneResult]:
    """Tunes the ``tune`` blocks of the ``.cuk`` file at ``path``; one result a block."""
    found = _cuk.autotune(
        path,
        tune=tune,
        target=target,
        report=report,
        dry_run=dry_run,
        kernel_timeout=kernel_timeout,
    )
    results = []
    for block in found:
        rows = [TuneRow(**row) for row in block.pop("rows")]
        winners = {bench: TuneWinner(**winner) for bench, winner in block.pop("winners").items()}
        result = TuneResult(rows=rows, winners=winners, **block)
        if not quiet:
            print(result.table)
            for bench, winner in result.winners.items():
                print(f"bench {bench}: fastest {winner.configuration} ({winner.kernel_ms:.4f} ms)")
        results.append(result)
    return results
