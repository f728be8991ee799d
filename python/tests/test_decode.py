"""``cuk.decode``'s paged decode attention against torch's ``scaled_dot_product_attention``
in f32 over the pages gathered into dense keys and values, on an sm_90 GPU: grouped-query
heads (groups 1, 4 and 8), pages of 16 and 64, ragged sequence lengths, one split and
many, bf16 caches and FP8 ones (e4m3 and e5m2 with per-tensor scales); and the bad block
tables, lengths, cache dtypes and scales it refuses before launching. Skipped without a
GPU and torch with CUDA (and on GPUs other than sm_90); ``scripts/gpu-check.sh`` runs
them."""

import pytest

from conftest import EXAMPLES

pytestmark = pytest.mark.gpu
# (seqlens, heads, kv_heads, d, page_size, splits)
CASES = [
    ([1, 15, 64, 100], 8, 2, 128, 16, 1),
    ([1, 15, 64, 100], 8, 2, 128, 16, 3),
    ([4096, 1, 4000, 333], 32, 8, 128, 64, None),
    ([700, 64], 2, 2, 128, 64, 4),
    ([16384], 64, 8, 128, 64, 32),
    ([100, 7], 8, 1, 64, 64, 2),
]


@pytest.fixture(scope="module")
def torch():
    import torch

    if torch.cuda.get_device_capability() != (9, 0):
        pytest.skip("the decode example is an sm_90a kernel file")
    return torch


@pytest.fixture(scope="module")
def decode():
    import cuk.decode

    return cuk.decode.PagedAttention(EXAMPLES)


def paged_problem(torch, seqlens, heads, kv_heads, d, page):
    """q, the caches, a block table scattering each sequence's pages over the cache (and
    padding with page 0), and the lengths."""
    batch = len(seqlens)
    max_pages = max(-(-n // page) for n in seqlens)
    num_pages = batch * max_pages + 3
    make = lambda *shape: torch.randn(*shape, dtype=torch.bfloat16, device="cuda")  # noqa: E731
    q = make(batch, heads, d)
    k_cache, v_cache = make(num_pages, page, kv_heads, d), make(num_pages, page, kv_heads, d)
    order = torch.randperm(num_pages, device="cuda")[: batch * max_pages].to(torch.int32)
    block_table = order.reshape(batch, max_pages).contiguous()
    lengths = torch.tensor(seqlens, dtype=torch.int32, device="cuda")
    return q, k_cache, v_cache, block_table, lengths


def dense_reference(torch, q, k_cache, v_cache, block_table, seqlens):
    """SDPA of each sequence's query against its gathered keys and values, in f32."""
    import torch.nn.functional as F

    page = k_cache.shape[1]
    out = []
    for b, n in enumerate(seqlens.tolist()):
        tokens = torch.arange(n, device="cuda")
        pages = block_table[b, tokens // page].long()
        k = k_cache[pages, tokens % page].float().transpose(0, 1)  # (kv_heads, n, d)
        v = v_cache[pages, tokens % page].float().transpose(0, 1)
        query = q[b].float().unsqueeze(1)  # (heads, 1, d)
        o = F.scaled_dot_product_attention(query, k, v, enable_gqa=k.shape[0] != query.shape[0])
        out.append(o.squeeze(1))
    return torch.stack(out)


def quantized(torch, cache, dtype):
    """``cache`` in the FP8 ``dtype`` with one scale, as a serving system stores it: the
    largest magnitude mapped to the format's largest value; and the scale."""
    scale = float(cache.abs().max().float()) / torch.finfo(dtype).max
    return (cache.float() / scale).to(dtype), scale


@pytest.mark.parametrize("case", CASES)
def test_paged_decode_matches_sdpa_over_the_gathered_pages(torch, decode, case):
    seqlens, heads, kv_heads, d, page, splits = case
    q, k_cache, v_cache, block_table, lengths = paged_problem(torch, seqlens, heads, kv_heads, d, page)
    got = decode(q, k_cache, v_cache, block_table, lengths, splits=splits)
    want = dense_reference(torch, q, k_cache, v_cache, block_table, lengths)
    torch.testing.assert_close(got.float(), want, rtol=2e-2, atol=2e-2)


def test_bad_block_tables_and_lengths_are_refused_before_the_launch(torch, decode):
    q, k_cache, v_cache, block_table, lengths = paged_problem(torch, [100, 30], 8, 2, 128, 16)
    past = block_table.clone()
    past[1, 0] = k_cache.shape[0]
    with pytest.raises(ValueError, match=r"attention_decode_sm90.cuk:\d+: .*`block_table\[1, 0\]` = \d+ is outside"):
        decode(q, k_cache, v_cache, past, lengths)
    negative = block_table.clone()
    negative[0, 2] = -1
    with pytest.raises(ValueError, match=r"`block_table\[0, 2\]` = -1 is outside"):
        decode(q, k_cache, v_cache, negative, lengths)
    long = lengths.clone()
    long[0] = block_table.shape[1] * 16 + 1
    with pytest.raises(ValueError, match=r"`seqlens\[0\]` = \d+ is outside"):
        decode(q, k_cache, v_cache, block_table, long)
    with pytest.raises(ValueError, match="a number of key heads dividing"):
        decode(q[:, :5], k_cache, v_cache, block_table, lengths)


# (case, FP8 dtype name): groups 4, 1 and 8 (8 lanes a token there), head dimension 64.
FP8_CASES = [
    (CASES[1], "float8_e4m3fn"),
    (CASES[2], "float8_e4m3fn"),
    (CASES[3], "float8_e5m2"),
    (CASES[4], "float8_e4m3fn"),
    (CASES[5], "float8_e5m2"),
]


@pytest.mark.parametrize(("case", "fp8"), FP8_CASES)
def test_fp8_caches_match_sdpa_over_their_dequantized_pages(torch, decode, case, fp8):
    seqlens, heads, kv_heads, d, page, splits = case
    q, k_cache, v_cache, block_table, lengths = paged_problem(torch, seqlens, heads, kv_heads, d, page)
    k_fp8, k_scale = quantized(torch, k_cache * 3, getattr(torch, fp8))
    v_fp8, v_scale = quantized(torch, v_cache, getattr(torch, fp8))
    # vLLM keeps its scales as one-element tensors; a float does as well.
    got = decode(q, k_fp8, v_fp8, block_table, lengths, splits=splits, k_scale=torch.tensor([k_scale]), v_scale=v_scale)
    want = dense_reference(torch, q, k_fp8.float() * k_scale, v_fp8.float() * v_scale, block_table, lengths)
    torch.testing.assert_close(got.float(), want, rtol=2e-2, atol=2e-2)


def test_bad_fp8_caches_and_scales_are_refused_before_the_launch(torch, decode):
    q, k_cache, v_cache, block_table, lengths = paged_problem(torch, [100, 30], 8, 2, 128, 16)
    k_fp8, v_fp8 = k_cache.to(torch.float8_e4m3fn), v_cache.to(torch.float8_e4m3fn)
    with pytest.raises(ValueError, match="caches of q's dtype or of one FP8 dtype"):
        decode(q, k_fp8, v_cache, block_table, lengths)
    with pytest.raises(ValueError, match="caches of q's dtype or of one FP8 dtype"):
        decode(q, k_fp8, v_cache.to(torch.float8_e5m2), block_table, lengths)
    with pytest.raises(ValueError, match=r"k_scale is a float or a one-element float tensor .*shape \(2,\)"):
        decode(q, k_fp8, v_fp8, block_table, lengths, k_scale=torch.ones(2))
    with pytest.raises(ValueError, match="v_scale is a float or a one-element float tensor, not 'x'"):
        decode(q, k_fp8, v_fp8, block_table, lengths, v_scale="x")
