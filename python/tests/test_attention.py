"""``cuk.attention``'s operator against torch's ``scaled_dot_product_attention`` in f32,
values and gradients, on an sm_90 GPU: multi-head and grouped-query, causal and not,
head dimensions 64, 128 and 256, ragged lengths; ``Attention.varlen`` on packed batches
against each sequence in f32; and ``Attention.fp8`` against torch on the dequantized values. Skipped without a GPU and torch with CUDA
(and on GPUs other than sm_90); ``scripts/gpu-check.sh`` runs them."""

import pytest

from conftest import EXAMPLES

pytestmark = pytest.mark.gpu
# (batch, heads, kv_heads, seqlen, d, causal)
CASES = [
    (2, 4, 2, 200, 64, True),
    (1, 2, 2, 256, 128, False),
    (1, 8, 1, 1000, 128, True),
    (2, 6, 3, 130, 64, False),
    (1, 4, 2, 200, 256, True),
    (1, 2, 2, 130, 256, False),
]


@pytest.fixture(scope="module")
def torch():
    import torch

    if torch.cuda.get_device_capability() != (9, 0):
        pytest.skip("the attention examples are sm_90a kernels")
    return torch


@pytest.fixture(scope="module")
def attend(torch):
    import cuk.attention

    return cuk.attention.Attention(EXAMPLES)


@pytest.mark.parametrize("case", CASES)
def test_attention_and_its_gradients_match_torch(torch, attend, case):
    import torch.nn.functional as F

    batch, heads, kv_heads, seqlen, d, causal = case
    make = lambda h: torch.randn(batch, h, seqlen, d, dtype=torch.bfloat16, device="cuda")  # noqa: E731
    q, k, v = make(heads), make(kv_heads), make(kv_heads)
    d_out = torch.randn_like(q)
    leaves = [t.detach().clone().requires_grad_(True) for t in (q, k, v)]
    o = attend(*leaves, causal=causal)
    o.backward(d_out)
    refs = [t.detach().float().requires_grad_(True) for t in (q, k, v)]
    want = F.scaled_dot_product_attention(*refs, is_causal=causal, enable_gqa=kv_heads != heads)
    want.backward(d_out.float())
    torch.testing.assert_close(o.float(), want, rtol=2e-2, atol=2e-2)
    for name, got, ref in zip(("dq", "dk", "dv"), leaves, refs):
        # dk and dv sum over a group of query heads: their errors grow with it.
        atol = 3e-2 * (heads // kv_heads if name != "dq" else 1)
        torch.testing.assert_close(got.grad.float(), ref.grad, rtol=3e-2, atol=atol, msg=name)


def test_the_deterministic_backward_gives_the_same_bits_twice(torch, attend):
    q, k, v = (torch.randn(1, 4, 1000, 128, dtype=torch.bfloat16, device="cuda") for _ in range(3))
    d_out = torch.randn_like(q)
    grads = []
    for _ in range(2):
        leaves = [t.detach().clone().requires_grad_(True) for t in (q, k, v)]
        attend(*leaves, deterministic=True).backward(d_out)
        grads.append([t.grad for t in leaves])
    for first, second in zip(*grads):
        assert torch.equal(first, second)


def test_shapes_the_kernels_cannot_take_are_refused(torch, attend):
    q = torch.randn(1, 4, 128, 64, dtype=torch.bfloat16, device="cuda")
    k = torch.randn(1, 3, 128, 64, dtype=torch.bfloat16, device="cuda")
    with pytest.raises(ValueError, match="dividing"):
        attend(q, k, k)
    with pytest.raises(ValueError, match="head dimension"):
        x = torch.randn(1, 2, 128, 96, dtype=torch.bfloat16, device="cuda")
        attend(x, x, x)
    with pytest.raises(ValueError, match="bf16 or f16"):
        x = torch.randn(1, 2, 128, 64, device="cuda")
        attend(x, x, x)


# Packed batches: (query lengths, key lengths, heads, kv_heads, d, causal).
VARLEN_CASES = [
    ((1, 17, 127, 128, 200), (200, 128, 17, 1, 127), 4, 2, 64, True),
    ((128, 1000, 8192), (128, 1000, 8192), 2, 1, 128, False),
    ((1000, 128), (128, 1000), 4, 4, 128, True),
    ((1, 130, 64, 1000), (130, 1, 64, 1000), 4, 2, 256, True),
    ((17, 200), (200, 17), 2, 2, 256, False),
]


def _packed_reference(torch, q, k, v, d_out, lengths_q, lengths_k, causal):
    """Each sequence through torch's SDPA in f32 (causal aligned to the bottom right, a
    query that sees no key giving 0), and the gradients of ``sum(o * d_out)``."""
    import torch.nn.functional as F

    refs = [t.detach().float().requires_grad_(True) for t in (q, k, v)]
    outs, start_q, start_k = [], 0, 0
    for sq, sk in zip(lengths_q, lengths_k):
        qs = refs[0][start_q : start_q + sq].transpose(0, 1)
        ks = refs[1][start_k : start_k + sk].transpose(0, 1)
        vs = refs[2][start_k : start_k + sk].transpose(0, 1)
        group = qs.shape[0] // ks.shape[0]
        ks, vs = ks.repeat_interleave(group, 0), vs.repeat_interleave(group, 0)
        scores = qs @ ks.transpose(1, 2) / qs.shape[-1] ** 0.5
        rows = torch.arange(sq, device=q.device)[:, None]
        cols = torch.arange(sk, device=q.device)[None, :]
        hidden = cols > rows + sk - sq if causal else cols < 0
        # A large finite negative rather than -inf, and rows that see nothing zeroed by
        # a constant mask: no NaN in the values or the gradients.
        seen = (~hidden).any(-1, keepdim=True).to(scores.dtype)
        weights = torch.softmax(scores.masked_fill(hidden, -1e30), -1) * seen
        outs.append((weights @ vs).transpose(0, 1))
        start_q, start_k = start_q + sq, start_k + sk
    want = torch.cat(outs)
    (want * d_out.float()).sum().backward()
    return want, refs


@pytest.mark.parametrize("case", VARLEN_CASES)
def test_packed_attention_and_its_gradients_match_each_sequence(torch, attend, case):
    lengths_q, lengths_k, heads, kv_heads, d, causal = case
    cu = lambda lengths: torch.tensor([0, *lengths], device="cuda").cumsum(0).to(torch.int32)  # noqa: E731
    make = lambda n, h: torch.randn(n, h, d, dtype=torch.bfloat16, device="cuda")  # noqa: E731
    q = make(sum(lengths_q), heads)
    k, v = make(sum(lengths_k), kv_heads), make(sum(lengths_k), kv_heads)
    d_out = torch.randn_like(q)
    leaves = [t.detach().clone().requires_grad_(True) for t in (q, k, v)]
    o = attend.varlen(*leaves, cu(lengths_q), cu(lengths_k), max(lengths_q), max(lengths_k), causal=causal)
    o.backward(d_out)
    want, refs = _packed_reference(torch, q, k, v, d_out, lengths_q, lengths_k, causal)
    torch.testing.assert_close(o.float(), want, rtol=2e-2, atol=2e-2)
    for name, got, ref in zip(("dq", "dk", "dv"), leaves, refs):
        atol = 3e-2 * (heads // kv_heads if name != "dq" else 1)
        torch.testing.assert_close(got.grad.float(), ref.grad, rtol=3e-2, atol=atol, msg=name)


def test_packed_batches_the_kernels_cannot_take_are_refused(torch, attend):
    x = torch.randn(10, 2, 64, dtype=torch.bfloat16, device="cuda")
    good = torch.tensor([0, 4, 10], dtype=torch.int32, device="cuda")
    bad_offsets = [
        (torch.tensor([1, 4, 10], dtype=torch.int32, device="cuda"), "starts at 0"),
        (torch.tensor([0, 4, 9], dtype=torch.int32, device="cuda"), "ends at the number of tokens"),
        (torch.tensor([0, 6, 4, 10], dtype=torch.int32, device="cuda"), "never decreases"),
        (torch.tensor([0, 4, 10], dtype=torch.int64, device="cuda"), "int32"),
    ]
    for offsets, message in bad_offsets:
        with pytest.raises(ValueError, match=message):
            attend.varlen(x, x, x, offsets, good, 10, 10)
    with pytest.raises(ValueError, match="max_seqlen_k"):
        attend.varlen(x, x, x, good, good, 6, 5)
    with pytest.raises(ValueError, match="one batch"):
        attend.varlen(x, x, x, good, torch.tensor([0, 10], dtype=torch.int32, device="cuda"), 6, 10)
    with pytest.raises(ValueError, match="dividing"):
        three = torch.randn(10, 3, 64, dtype=torch.bfloat16, device="cuda")
        attend.varlen(x, three, three, good, good, 6, 6)
    with pytest.raises(ValueError, match="bf16 or f16"):
        attend.varlen(x, x.float(), x.float(), good, good, 6, 6)


# (batch, heads, kv_heads, seqlen, d, causal) for the FP8 forward.
FP8_CASES = [
    (1, 2, 2, 200, 128, False),
    (2, 4, 2, 1000, 128, True),
    (1, 2, 1, 130, 64, False),
    (1, 2, 2, 144, 256, True),
]


@pytest.mark.parametrize("case", FP8_CASES)
def test_the_fp8_forward_matches_torch_on_the_dequantized_values(torch, attend, case):
    import torch.nn.functional as F

    batch, heads, kv_heads, seqlen, d, causal = case
    make = lambda h: torch.randn(batch, h, seqlen, d, device="cuda").to(torch.float8_e4m3fn)  # noqa: E731
    q, k, v = make(heads), make(kv_heads), make(kv_heads)
    scales = (0.5, 0.25, 0.5)
    o = attend.fp8(q, k, v, *scales, causal=causal)
    refs = [t.float() * scale for t, scale in zip((q, k, v), scales)]
    want = F.scaled_dot_product_attention(*refs, is_causal=causal, enable_gqa=kv_heads != heads)
    # P in e4m3 (3 mantissa bits) costs o a few hundredths, as the example's tests say.
    torch.testing.assert_close(o.float(), want, rtol=2e-2, atol=5e-2)


def test_the_fp8_forward_refuses_other_dtypes(torch, attend):
    x = torch.randn(1, 2, 128, 64, dtype=torch.bfloat16, device="cuda")
    with pytest.raises(ValueError, match="float8_e4m3fn"):
        attend.fp8(x, x, x, 1.0, 1.0, 1.0)
