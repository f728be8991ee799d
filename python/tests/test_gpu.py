"""On the GPU, with torch: results against torch, streams, CUDA-graph capture and
replay, ``torch.compile`` of a function that calls a CuK kernel, and the host time of a
launch beside ``torch.Tensor.copy_``, and ``cuk.autotune`` of the SM90 GEMM's quick space
with ``cuk.load`` using its winner. Skipped without a GPU and torch with CUDA;
``scripts/gpu-check.sh`` runs them on the GPU machine."""

import os
import time

import pytest

import cuk
from conftest import EXAMPLES, KERNELS, ROOT

pytestmark = pytest.mark.gpu
LAUNCHES = 10_000


@pytest.fixture(scope="module")
def torch():
    import torch

    return torch


@pytest.fixture(scope="module")
def copy_mod():
    return cuk.load(os.path.join(EXAMPLES, "copy_vectorized.cuk"))


def test_the_module_targets_this_gpu(torch, copy_mod):
    major, _ = torch.cuda.get_device_capability()
    assert copy_mod.target == {8: "sm_80", 9: "sm_90a", 10: "sm_100a"}[major]


def test_the_readme_quick_start_runs(torch, monkeypatch):
    # The README's Python block, as written, from the repository's root.
    with open(os.path.join(ROOT, "README.md")) as file:
        readme = file.read()
    start = readme.index("```python\n") + len("```python\n")
    block = readme[start : readme.index("```", start)]
    monkeypatch.chdir(ROOT)
    names = {}
    exec(compile(block, "README.md", "exec"), names)
    torch.cuda.synchronize()
    assert torch.equal(names["out"], names["a"])


def test_the_vectorized_copy_matches_torch(torch, copy_mod):
    a = torch.randn(1024, 512, dtype=torch.bfloat16, device="cuda")
    out = torch.empty_like(a)
    copy_mod.copy_vectorized(a, out)
    torch.cuda.synchronize()
    assert torch.equal(out, a)


def test_axpy_and_elementwise_add_match_torch(torch):
    axpy = cuk.load(os.path.join(EXAMPLES, "axpy.cuk")).axpy
    x = torch.randn(10_000, device="cuda")
    y = torch.randn(10_000, device="cuda")
    expected = 3.0 * x + y
    axpy(3.0, x, y)
    torch.testing.assert_close(y, expected)
    add = cuk.load(os.path.join(EXAMPLES, "elementwise_add.cuk")).elementwise_add
    a, b = torch.randn(300, 200, device="cuda"), torch.randn(300, 200, device="cuda")
    c = torch.empty_like(a)
    add(a, b, c)
    torch.testing.assert_close(c, a + b)


def test_a_specialization_runs(torch):
    kernel = cuk.load(os.path.join(KERNELS, "copy_f32.cuk")).copy_f32.specialize(BK=32)
    a = torch.randn(64, 256, device="cuda")
    out = torch.zeros_like(a)
    kernel(a, out)
    assert torch.equal(out, a)


class DlpackOnly:
    """A tensor seen only through DLPack, as a producer other than torch shows it."""

    def __init__(self, tensor):
        self.tensor = tensor

    def __dlpack__(self, **kwargs):
        return self.tensor.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self.tensor.__dlpack_device__()


def test_dlpack_producers_are_taken(torch, copy_mod):
    a = torch.randn(256, 512, dtype=torch.bfloat16, device="cuda")
    out = torch.zeros_like(a)
    copy_mod.copy_vectorized(DlpackOnly(a), DlpackOnly(out))
    torch.cuda.synchronize()
    assert torch.equal(out, a)


def test_cupy_arrays_are_taken(torch):
    cupy = pytest.importorskip("cupy")
    add = cuk.load(os.path.join(EXAMPLES, "elementwise_add.cuk")).elementwise_add
    a = cupy.random.standard_normal((300, 200), dtype=cupy.float32)
    b = cupy.random.standard_normal((300, 200), dtype=cupy.float32)
    c = cupy.zeros_like(a)
    add(a, b, c, stream=cupy.cuda.get_current_stream().ptr)
    cupy.cuda.get_current_stream().synchronize()
    assert cupy.allclose(c, a + b)


def test_a_misaligned_torch_tensor_is_refused_before_launch(torch, copy_mod):
    storage = torch.zeros(128 * 64 + 1, dtype=torch.bfloat16, device="cuda")
    a = storage[1:].view(128, 64)
    with pytest.raises(ValueError, match=r"`a` starts at address 0x[0-9a-f]+, which is not a multiple of 16 bytes"):
        copy_mod.copy_vectorized(a, torch.empty(128, 64, dtype=torch.bfloat16, device="cuda"))


def test_the_call_runs_on_the_current_stream(torch, copy_mod):
    a = torch.randn(2048, 2048, dtype=torch.bfloat16, device="cuda")
    out = torch.zeros_like(a)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        copy_mod.copy_vectorized(a, out)
        result = out.clone()
    side.synchronize()
    assert torch.equal(result, a)


def test_an_explicit_stream_is_used(torch, copy_mod):
    a = torch.randn(512, 512, dtype=torch.bfloat16, device="cuda")
    out = torch.zeros_like(a)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    copy_mod.copy_vectorized(a, out, stream=side)
    side.synchronize()
    assert torch.equal(out, a)


def test_a_cuda_graph_captures_and_replays_the_launch(torch, copy_mod):
    a = torch.randn(1024, 1024, dtype=torch.bfloat16, device="cuda")
    out = torch.zeros_like(a)
    kernel = copy_mod.copy_vectorized
    warmup = torch.cuda.Stream()
    warmup.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(warmup):
        kernel(a, out)
    torch.cuda.current_stream().wait_stream(warmup)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        kernel(a, out)
    for _ in range(3):
        fresh = torch.randn_like(a)
        a.copy_(fresh)
        graph.replay()
        torch.cuda.synchronize()
        assert torch.equal(out, fresh)


def test_torch_compile_calls_the_kernel_without_a_graph_break(torch, copy_mod):
    import cuk.torch

    copy = cuk.torch.register(copy_mod.copy_vectorized, mutates=["out"], name="copy_vectorized_gpu")

    def doubled_copy(a, out):
        copy(a * 2, out)
        return out + 1

    compiled = torch.compile(doubled_copy, fullgraph=True)
    a = torch.randn(256, 512, dtype=torch.bfloat16, device="cuda")
    out = torch.empty_like(a)
    result = compiled(a, out)
    torch.cuda.synchronize()
    assert torch.equal(out, a * 2)
    assert torch.equal(result, a * 2 + 1)


def test_autotune_times_the_quick_gemm_space_and_load_uses_the_winner(torch, tmp_path, monkeypatch, capsys):
    # `cukc tune --tune gemm_tn_quick` from Python: 8 points at 4096^3, timed here, the
    # winner stored in a cukc cache directory of the test's own (so that no other load
    # of the GEMM is tuned by it), then used by a load for this GPU.
    gemm = os.path.join(EXAMPLES, "gemm_sm90.cuk")
    if torch.cuda.get_device_capability()[0] != 9:
        pytest.skip("gemm_sm90.cuk needs an SM90 GPU")
    monkeypatch.setenv("CUKC_CACHE_DIR", str(tmp_path / "cukc"))
    report = tmp_path / "quick.txt"
    (result,) = cuk.autotune(gemm, tune="gemm_tn_quick", report=str(report), quiet=True)
    assert result.gpu == torch.cuda.get_device_name()
    assert len(result.rows) == 8 and result.valid
    for row in result.valid:
        time = row.times["gemm_tn_4096"]
        assert time["kernel_ms"] > 0 and time["unit"] == "TFLOP/s", row
    assert report.read_text() == result.table
    winner = result.winners["gemm_tn_4096"]
    assert winner.kernel_ms > 0 and winner.stored and os.path.isfile(winner.stored)
    assert winner.stored.startswith(str(tmp_path / "cukc" / "tune"))
    print(f"cuk.autotune gemm_tn_quick: fastest {winner.configuration}, {winner.kernel_ms:.4f} ms")
    capsys.readouterr()
    mod = cuk.load(gemm, cache_dir=str(tmp_path / "kernels"))
    tuned = mod.gemm_tn.tuned
    assert (tuned["tune"], tuned["bench"], tuned["gpu"]) == ("gemm_tn_quick", "gemm_tn_4096", result.gpu)
    assert tuned["values"] == result.rows[winner.row - 1].values
    assert tuned["file"] == winner.stored
    for name, value in tuned["values"].items():
        assert mod.gemm_tn.const_args[name] == value
    assert f"using {winner.configuration} for `gemm_tn`" in capsys.readouterr().err


def host_time_per_launch(torch, launch):
    for _ in range(100):
        launch()
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(LAUNCHES):
        launch()
    elapsed = time.perf_counter() - start
    torch.cuda.synchronize()
    return elapsed / LAUNCHES * 1e6


def test_host_time_per_launch_is_at_most_5_us(torch, copy_mod):
    a = torch.randn(128, 64, dtype=torch.bfloat16, device="cuda")
    out = torch.empty_like(a)
    kernel = copy_mod.copy_vectorized
    cuk_us = host_time_per_launch(torch, lambda: kernel(a, out))
    torch_us = host_time_per_launch(torch, lambda: out.copy_(a))
    report = f"host time per launch over {LAUNCHES} launches: cuk copy_vectorized {cuk_us:.2f} us, torch.Tensor.copy_ {torch_us:.2f} us"
    print(report)
    path = os.environ.get("CUK_BENCH_REPORT")
    if path:
        with open(path, "a") as file:
            file.write(report + "\n")
    assert cuk_us <= 5.0, report
