"""``cuk.decode``'s paged decode attention against torch's ``scaled_dot_product_attention``
in f32 over the pages gathered into dense keys and values, on an sm_90 GPU: grouped-query
heads (groups 1, 4 and 8), pages of 16 and 64, ragged sequence lengths, one split and
many; and the bad block tables and lengths it refuses before launching. Skipped without a
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
