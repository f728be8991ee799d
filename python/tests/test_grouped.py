"""``cuk.grouped``'s grouped GEMMs against torch in f32 (each expert's rows times its
weight, group by group) and against ``torch._grouped_mm`` where it exists, on an sm_90
GPU: empty experts, one-row experts, experts ending inside a tile, rows past the last
offset, counts below the buffer; and the offsets and counts it refuses before launching.
Skipped without a GPU and torch with CUDA; ``scripts/gpu-check.sh`` runs them."""

import pytest

from conftest import EXAMPLES

pytestmark = pytest.mark.gpu
# (rows of each expert, n, k)
CASES = [
    ([0, 1, 200, 129, 0, 384], 256, 128),
    ([512] * 8, 1536, 2048),
    ([3, 70], 72, 40),
]


@pytest.fixture(scope="module")
def torch():
    import torch

    if torch.cuda.get_device_capability() != (9, 0):
        pytest.skip("the grouped example is an sm_90a kernel file")
    return torch


@pytest.fixture(scope="module")
def grouped():
    import cuk.grouped

    return cuk.grouped.GroupedGemm(EXAMPLES)


def reference(torch, a, w, starts, rows):
    """Each expert's rows times its weight's transpose, in f32."""
    return [a[s : s + r].float() @ w[g].float().T for g, (s, r) in enumerate(zip(starts, rows))]


@pytest.mark.parametrize("rows, n, k", CASES)
@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_contiguous_matches_each_expert(torch, grouped, rows, n, k, dtype):
    dtype = getattr(torch, dtype)
    groups = len(rows)
    starts = [sum(rows[:g]) for g in range(groups)]
    total = sum(rows) + 5  # five rows past the last offset stay zero
    a = torch.randn(total, k, device="cuda", dtype=dtype)
    w = torch.randn(groups, n, k, device="cuda", dtype=dtype)
    offsets = torch.tensor(starts + [sum(rows)], device="cuda", dtype=torch.int32)
    d = grouped.contiguous(a, w, offsets)
    for g, want in enumerate(reference(torch, a, w, starts, rows)):
        got = d[starts[g] : starts[g] + rows[g]].float()
        torch.testing.assert_close(got, want, rtol=2e-2, atol=2e-2 * k**0.5)
    assert bool((d[sum(rows) :] == 0).all())
    if hasattr(torch, "_grouped_mm") and min(rows) > 0 and dtype == torch.bfloat16:
        ends = offsets[1:]
        theirs = torch._grouped_mm(a[: sum(rows)], w.transpose(-2, -1), offs=ends)
        torch.testing.assert_close(d[: sum(rows)].float(), theirs.float(), rtol=2e-2, atol=2e-2 * k**0.5)


@pytest.mark.parametrize("rows, n, k", CASES)
def test_masked_matches_each_expert(torch, grouped, rows, n, k):
    groups, max_m = len(rows), max(rows) + 3
    a = torch.randn(groups, max_m, k, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(groups, n, k, device="cuda", dtype=torch.bfloat16)
    counts = torch.tensor(rows, device="cuda", dtype=torch.int32)
    d = grouped.masked(a, w, counts)
    for g in range(groups):
        want = a[g, : rows[g]].float() @ w[g].float().T
        torch.testing.assert_close(d[g, : rows[g]].float(), want, rtol=2e-2, atol=2e-2 * k**0.5)
        assert bool((d[g, rows[g] :] == 0).all())


def test_bad_offsets_and_counts_are_refused_before_the_launch(torch, grouped):
    a = torch.randn(64, 64, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(2, 64, 64, device="cuda", dtype=torch.bfloat16)
    for offsets, says in (([1, 10, 64], "offsets[0] = 1"), ([0, 40, 30], "offsets[2] = 30"), ([0, 10, 65], "past a's 64 rows")):
        with pytest.raises(ValueError, match=says.replace("[", r"\[").replace("]", r"\]")):
            grouped.contiguous(a, w, torch.tensor(offsets, device="cuda", dtype=torch.int32))
    with pytest.raises(ValueError, match=r"counts\[1\] = 33"):
        grouped.masked(a.view(2, 32, 64), w, torch.tensor([3, 33], device="cuda", dtype=torch.int32))
    with pytest.raises(ValueError, match="multiples of 8"):
        grouped.contiguous(a[:, :60], w[:, :, :60], torch.tensor([0, 1, 2], device="cuda", dtype=torch.int32))
