"""``cuk.grouped``'s FP8 grouped GEMMs against torch in f32 over the dequantized inputs
(each expert's rows times its weight, every 1 x 128 block of ``a`` and 128 x 128 block of
``w`` times its scale), and against ``torch._scaled_grouped_mm`` where it exists, on an
sm_90 GPU: e4m3 and e5m2 in both pairings, empty and one-row experts, k not a multiple
of 128, counts below the buffer; and the scales and dtypes it refuses before launching.
Skipped without a GPU and torch with CUDA; ``scripts/gpu-check.sh`` runs them."""

import pytest

from conftest import EXAMPLES

pytestmark = pytest.mark.gpu
# (rows of each expert, n, k)
CASES = [
    ([0, 1, 200, 129, 0, 384], 256, 128),
    ([130, 0, 1, 269], 320, 208),
    ([512] * 8, 1536, 2048),
]
PAIRS = [("float8_e4m3fn", "float8_e4m3fn"), ("float8_e5m2", "float8_e4m3fn")]


@pytest.fixture(scope="module")
def torch():
    import torch

    if torch.cuda.get_device_capability() != (9, 0):
        pytest.skip("the grouped FP8 example is an sm_90a kernel file")
    return torch


@pytest.fixture(scope="module")
def grouped():
    import cuk.grouped

    return cuk.grouped.GroupedGemm(EXAMPLES)


def dequantized(torch, values, scales, block_rows):
    """``values`` in f32 times its scales: one per ``block_rows`` rows (1 for ``a``, 128
    for ``w``) and 128 columns, ``scales`` holding the leading dimensions' blocks."""
    rows, k = values.shape[-2:]
    per_row = scales.repeat_interleave(block_rows, dim=-2)[..., :rows, :]
    return values.float() * per_row.repeat_interleave(128, dim=-1)[..., :k]


def fp8(torch, shape, dtype):
    """Normal values rounded to ``dtype``."""
    return torch.randn(*shape, device="cuda").to(getattr(torch, dtype))


@pytest.mark.parametrize("rows, n, k", CASES)
@pytest.mark.parametrize("a_dtype, w_dtype", PAIRS)
def test_contiguous_fp8_matches_each_expert(torch, grouped, rows, n, k, a_dtype, w_dtype):
    groups, blocks = len(rows), -(-k // 128)
    starts = [sum(rows[:g]) for g in range(groups)]
    total = sum(rows) + 5  # five rows past the last offset stay zero
    a = fp8(torch, (total, k), a_dtype)
    w = fp8(torch, (groups, n, k), w_dtype)
    scale_a = torch.rand(total, blocks, device="cuda") + 0.5
    scale_w = torch.rand(groups, -(-n // 128), blocks, device="cuda") + 0.5
    offsets = torch.tensor(starts + [sum(rows)], device="cuda", dtype=torch.int32)
    d = grouped.contiguous_fp8(a, w, offsets, scale_a, scale_w)
    assert d.dtype == torch.bfloat16 and d.shape == (total, n)
    a_values = dequantized(torch, a, scale_a, 1)
    for g, (s, r) in enumerate(zip(starts, rows)):
        want = a_values[s : s + r] @ dequantized(torch, w[g], scale_w[g], 128).T
        torch.testing.assert_close(d[s : s + r].float(), want, rtol=2e-2, atol=3e-1)
    assert bool((d[sum(rows) :] == 0).all())


@pytest.mark.parametrize("rows, n, k", CASES)
def test_masked_fp8_matches_each_expert(torch, grouped, rows, n, k):
    groups, max_m, blocks = len(rows), max(rows) + 3, -(-k // 128)
    a = fp8(torch, (groups, max_m, k), "float8_e4m3fn")
    w = fp8(torch, (groups, n, k), "float8_e4m3fn")
    scale_a = torch.rand(groups, max_m, blocks, device="cuda") + 0.5
    scale_w = torch.rand(groups, -(-n // 128), blocks, device="cuda") + 0.5
    counts = torch.tensor(rows, device="cuda", dtype=torch.int32)
    d = grouped.masked_fp8(a, w, counts, scale_a, scale_w)
    for g in range(groups):
        want = dequantized(torch, a[g, : rows[g]], scale_a[g, : rows[g]], 1) @ dequantized(
            torch, w[g], scale_w[g], 128
        ).T
        torch.testing.assert_close(d[g, : rows[g]].float(), want, rtol=2e-2, atol=3e-1)
        assert bool((d[g, rows[g] :] == 0).all())


def test_per_tensor_scales_agree_with_torch_scaled_grouped_mm(torch, grouped):
    scaled_grouped_mm = getattr(torch, "_scaled_grouped_mm", None)
    if scaled_grouped_mm is None:
        pytest.skip(f"torch {torch.__version__} has no torch._scaled_grouped_mm")
    groups, rows, n, k = 4, 128, 256, 512
    a = fp8(torch, (groups * rows, k), "float8_e4m3fn")
    w = fp8(torch, (groups, n, k), "float8_e4m3fn")
    offsets = torch.arange(0, groups + 1, device="cuda", dtype=torch.int32) * rows
    ones_a = torch.ones(groups * rows, k // 128, device="cuda")
    ones_w = torch.ones(groups, n // 128, k // 128, device="cuda")
    d = grouped.contiguous_fp8(a, w, offsets, ones_a, ones_w)
    try:
        theirs = scaled_grouped_mm(
            a, w.transpose(-2, -1), torch.ones(groups * rows, device="cuda"), torch.ones(groups, n, device="cuda"),
            offs=offsets[1:], out_dtype=torch.bfloat16,
        )  # fmt: skip
    except (RuntimeError, TypeError) as error:
        pytest.skip(f"torch._scaled_grouped_mm refused these inputs here: {error}")
    torch.testing.assert_close(d.float(), theirs.float(), rtol=2e-2, atol=3e-1)


def test_bad_scales_and_dtypes_are_refused_before_the_launch(torch, grouped):
    a = fp8(torch, (64, 256), "float8_e4m3fn")
    w = fp8(torch, (2, 128, 256), "float8_e4m3fn")
    offsets = torch.tensor([0, 10, 64], device="cuda", dtype=torch.int32)
    scale_a = torch.ones(64, 2, device="cuda")
    scale_w = torch.ones(2, 1, 2, device="cuda")
    with pytest.raises(ValueError, match=r"scale_a is float32 of shape \(64, 2\)"):
        grouped.contiguous_fp8(a, w, offsets, scale_a[:, :1], scale_w)
    with pytest.raises(ValueError, match=r"scale_w is float32 of shape \(2, 1, 2\)"):
        grouped.contiguous_fp8(a, w, offsets, scale_a, scale_w.double())
    with pytest.raises(ValueError, match="float8_e4m3fn or float8_e5m2"):
        grouped.contiguous_fp8(a.to(torch.bfloat16), w, offsets, scale_a, scale_w)
    with pytest.raises(ValueError, match=r"offsets\[2\] = 65"):
        grouped.contiguous_fp8(a, w, torch.tensor([0, 10, 65], device="cuda", dtype=torch.int32), scale_a, scale_w)
    with pytest.raises(ValueError, match=r"counts\[1\] = 33"):
        grouped.masked_fp8(
            a.view(2, 32, 256), w, torch.tensor([3, 33], device="cuda", dtype=torch.int32),
            torch.ones(2, 32, 2, device="cuda"), scale_w,
        )  # fmt: skip
