"""``cuk.training``'s operators against torch in f32, values and gradients, on the GPU:
RMSNorm, LayerNorm (rows of 256 to 8192, ragged ones included) and cross-entropy (with
ignored rows and label smoothing, rows in registers and looped). Skipped without a GPU
and torch with CUDA; ``scripts/gpu-check.sh`` runs them."""

import pytest

from conftest import EXAMPLES

pytestmark = pytest.mark.gpu
SHAPES = [(256, 4096), (37, 1000), (64, 256), (16, 8192)]


@pytest.fixture(scope="module")
def torch():
    import torch

    return torch


@pytest.fixture(scope="module")
def ops():
    import cuk.training

    return cuk.training.Ops(EXAMPLES)


def leaves(*tensors):
    """Fresh leaves of the tensors that record their gradients."""
    return [tensor.detach().clone().requires_grad_(True) for tensor in tensors]


@pytest.mark.parametrize("shape", SHAPES)
def test_rms_norm_matches_torch(torch, ops, shape):
    m, n = shape
    x = torch.randn(m, n, dtype=torch.bfloat16, device="cuda")
    w = torch.randn(n, dtype=torch.bfloat16, device="cuda")
    dy = torch.randn_like(x)
    xr, wr = leaves(x.float(), w.float())
    want = xr * torch.rsqrt(xr.pow(2).mean(-1, keepdim=True) + 1e-6) * wr
    want.backward(dy.float())
    xc, wc = leaves(x, w)
    got = ops.rms_norm(xc, wc, 1e-6)
    got.backward(dy)
    torch.testing.assert_close(got.float(), want, rtol=2e-2, atol=2e-2)
    torch.testing.assert_close(xc.grad.float(), xr.grad, rtol=2e-2, atol=2e-2)
    torch.testing.assert_close(wc.grad.float(), wr.grad, rtol=2e-2, atol=1e-1)


def test_f32_rows_too_long_for_two_stages_take_one(torch, ops):
    """f32 rows of 16384: two stages of x and dy would exceed the backward's shared memory
    budget, so one is staged at a time; the values are the same."""
    x = torch.randn(8, 16384, dtype=torch.float32, device="cuda")
    w = torch.randn(16384, dtype=torch.float32, device="cuda")
    b = torch.randn(16384, dtype=torch.float32, device="cuda")
    dy = torch.randn_like(x)
    xr, wr = leaves(x, w)
    want = xr * torch.rsqrt(xr.pow(2).mean(-1, keepdim=True) + 1e-6) * wr
    want.backward(dy)
    xc, wc = leaves(x, w)
    got = ops.rms_norm(xc, wc, 1e-6)
    got.backward(dy)
    torch.testing.assert_close(xc.grad, xr.grad, rtol=1e-4, atol=1e-4)
    torch.testing.assert_close(wc.grad, wr.grad, rtol=1e-4, atol=1e-3)
    xr, wr, br = leaves(x, w, b)
    want = torch.nn.functional.layer_norm(xr, (16384,), wr, br, 1e-5)
    want.backward(dy)
    xc, wc, bc = leaves(x, w, b)
    got = ops.layer_norm(xc, wc, bc, 1e-5)
    got.backward(dy)
    torch.testing.assert_close(xc.grad, xr.grad, rtol=1e-4, atol=1e-4)
    torch.testing.assert_close(bc.grad, br.grad, rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize("shape", SHAPES)
def test_layer_norm_matches_torch(torch, ops, shape):
    m, n = shape
    x = torch.randn(m, n, dtype=torch.bfloat16, device="cuda") + 4
    w = torch.randn(n, dtype=torch.bfloat16, device="cuda")
    b = torch.randn(n, dtype=torch.bfloat16, device="cuda")
    dy = torch.randn_like(x)
    xr, wr, br = leaves(x.float(), w.float(), b.float())
    want = torch.nn.functional.layer_norm(xr, (n,), wr, br, 1e-5)
    want.backward(dy.float())
    xc, wc, bc = leaves(x, w, b)
    got = ops.layer_norm(xc, wc, bc, 1e-5)
    got.backward(dy)
    torch.testing.assert_close(got.float(), want, rtol=2e-2, atol=2e-2)
    torch.testing.assert_close(xc.grad.float(), xr.grad, rtol=2e-2, atol=2e-2)
    torch.testing.assert_close(wc.grad.float(), wr.grad, rtol=2e-2, atol=1e-1)
    torch.testing.assert_close(bc.grad.float(), br.grad, rtol=2e-2, atol=1e-1)


@pytest.mark.parametrize("shape", [(512, 1000), (64, 32768), (8, 131072)])
@pytest.mark.parametrize("smoothing", [0.0, 0.1])
def test_cross_entropy_matches_torch(torch, ops, shape, smoothing):
    m, classes = shape
    logits = torch.randn(m, classes, dtype=torch.bfloat16, device="cuda") * 4
    labels = torch.randint(0, classes, (m,), device="cuda")
    labels[::5] = -100
    (want_leaf,) = leaves(logits.float())
    want = torch.nn.functional.cross_entropy(want_leaf, labels, ignore_index=-100, label_smoothing=smoothing)
    want.backward()
    (got_leaf,) = leaves(logits)
    got = ops.cross_entropy(got_leaf, labels, ignore_index=-100, label_smoothing=smoothing)
    got.backward()
    torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-4)
    torch.testing.assert_close(got_leaf.grad.float(), want_leaf.grad, rtol=2e-2, atol=1e-6)
    assert torch.count_nonzero(got_leaf.grad[::5]) == 0


def test_mismatched_weights_are_refused(torch, ops):
    x = torch.randn(8, 256, dtype=torch.bfloat16, device="cuda")
    with pytest.raises(ValueError, match=r"weights and biases are 256 values of torch\.bfloat16"):
        ops.rms_norm(x, torch.randn(256, device="cuda"))
