"""torch on the CPU, no GPU needed: torch tensors on the emulator, torch's dtypes and
devices in the checks, and ``cuk.torch`` operators traced by ``torch.compile``.
Skipped without torch."""

import os

import pytest

import cuk
from conftest import EXAMPLES, ROOT

torch = pytest.importorskip("torch")
import cuk.torch  # noqa: E402  (needs torch)


@pytest.fixture(scope="module")
def emulated_copy():
    return cuk.load(os.path.join(EXAMPLES, "copy_vectorized.cuk"), emulate=True)


def test_torch_bf16_tensors_run_on_the_emulator(emulated_copy):
    a = torch.randn(128, 64, dtype=torch.bfloat16)
    out = torch.zeros_like(a)
    emulated_copy.copy_vectorized(a, out)
    assert torch.equal(out, a)


def test_a_torch_dtype_mismatch_names_the_parameter(emulated_copy):
    a = torch.randn(128, 64)
    with pytest.raises(ValueError, match=r"copy_vectorized\.cuk:28: `copy_vectorized`: `a` holds bf16, but this tensor holds f32"):
        emulated_copy.copy_vectorized(a, torch.zeros(128, 64, dtype=torch.bfloat16))


def test_a_cpu_torch_tensor_is_refused_by_a_gpu_module(cache_dir):
    mod = cuk.load(os.path.join(EXAMPLES, "copy_vectorized.cuk"), target="sm_90a", cache_dir=cache_dir)
    a = torch.randn(128, 64, dtype=torch.bfloat16)
    with pytest.raises(ValueError, match=r"`a` is on cpu, but the kernel runs on a GPU: move it there \(\.cuda\(\)\)"):
        mod.copy_vectorized.check(a, torch.empty_like(a))


def test_a_transposed_torch_tensor_is_refused(emulated_copy):
    a = torch.randn(64, 128, dtype=torch.bfloat16).t()
    with pytest.raises(ValueError, match=r"`a` has strides \[1, 128\], but the kernel reads it with strides \[64, 1\]"):
        emulated_copy.copy_vectorized(a, torch.zeros(128, 64, dtype=torch.bfloat16))


def test_a_misaligned_torch_view_is_refused(emulated_copy):
    storage = torch.zeros(128 * 64 + 1, dtype=torch.bfloat16)
    a = storage[1:].view(128, 64)
    with pytest.raises(ValueError, match=r"`a` starts at address 0x[0-9a-f]+, which is not a multiple of 16 bytes"):
        emulated_copy.copy_vectorized.check(a, torch.zeros(128, 64, dtype=torch.bfloat16))


def test_tensors_the_fast_read_leaves_are_read_through_their_attributes(emulated_copy):
    # A subclass may override what it says of itself; a dtype CuK does not take gets
    # torch's name in the message.
    a = torch.nn.Parameter(torch.randn(128, 64, dtype=torch.bfloat16), requires_grad=False)
    out = torch.zeros(128, 64, dtype=torch.bfloat16)
    emulated_copy.copy_vectorized(a, out)
    assert torch.equal(out, a)
    with pytest.raises(ValueError, match=r"`a` is a tensor, but .*it holds torch\.bool, which CuK kernels do not take"):
        emulated_copy.copy_vectorized(torch.zeros(128, 64, dtype=torch.bool), out)


def test_a_dtype_const_argument_may_be_a_torch_dtype():
    mod = cuk.load(os.path.join(ROOT, "tests", "control", "dtype_params.cuk"), emulate=True)
    fill = mod.fill.specialize(T=torch.float64)
    assert fill.const_args == {"T": "f64"}
    x = torch.zeros(300, dtype=torch.float64)
    fill(x, 2.5)
    assert torch.equal(x, torch.full((300,), 2.5, dtype=torch.float64))


def test_a_registered_operator_runs_and_compiles_without_a_graph_break(emulated_copy):
    copy = cuk.torch.register(emulated_copy.copy_vectorized, mutates=["out"], name="copy_vectorized_cpu")
    a = torch.randn(128, 64, dtype=torch.bfloat16)
    out = torch.zeros_like(a)
    copy(a, out)
    assert torch.equal(out, a)

    def doubled(a, out):
        copy(a * 2, out)
        return out + 1

    compiled = torch.compile(doubled, backend="aot_eager", fullgraph=True)
    out = torch.zeros_like(a)
    result = compiled(a, out)
    assert torch.equal(out, a * 2)
    assert torch.equal(result, a * 2 + 1)


def test_register_refuses_an_unknown_mutated_tensor(emulated_copy):
    with pytest.raises(ValueError, match=r"`copy_vectorized` has no tensor parameter b; its tensors: a, out"):
        cuk.torch.register(emulated_copy.copy_vectorized, mutates=["b"], name="copy_vectorized_bad")
