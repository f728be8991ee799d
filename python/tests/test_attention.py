"""``cuk.attention``'s operator against torch's ``scaled_dot_product_attention`` in f32,
values and gradients, on an sm_90 GPU: multi-head and grouped-query, causal and not,
head dimensions 64 and 128, ragged lengths. Skipped without a GPU and torch with CUDA
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
