"""``cuk.linear``'s ``y = x @ w.T`` and ``cuk.gemm_table``, the configuration by M it
shares with ``scripts/gemm-sweep.py``.

Without a GPU or torch: the table's plans for known shapes, the sweep script reading the
same table, and every plan's launches passing the kernels' checks for sm_90a (``check``
on stand-in arrays). With torch on the CPU: small shapes of each kernel on the emulator,
and the inputs refused before a launch. Marked ``gpu`` (skipped without an sm_90 GPU
and torch with CUDA; ``scripts/gpu-check.sh`` runs them): every row of the table, M from
1 to 1024, against torch in f32, bf16 and f16, ragged n and k."""

import importlib.util
import os

import pytest

import cuk
from conftest import EXAMPLES, ROOT, CudaArray
from cuk import gemm_table

# The M of every row of the table and the edges between them.
SIZES_M = [1, 5, 16, 64, 100, 128, 200, 256, 1024]
# (n, k): a Llama-3-8B projection, ragged n (200 = 3 * 64 + 8) and k (520 = 8 * 64 + 8),
# and a long k.
WEIGHTS = [(4096, 4096), (200, 520), (1536, 7168)]


def load_sweep():
    path = os.path.join(ROOT, "scripts", "gemm-sweep.py")
    spec = importlib.util.spec_from_file_location("gemm_sweep", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    "m, n, k, kernel, consts, splits, reduce",
    [
        # 64 tiles of 64 weight rows: two splits fill 128 of the 132 SMs.
        (1, 4096, 4096, "swap", {"BA": 8, "WG": 1, "STAGES": 8, "LAST": 1}, 2, False),
        (5, 4096, 4096, "swap", {"BA": 8, "WG": 1, "STAGES": 8, "LAST": 1}, 2, False),
        # One k-tile: one split, however few the tiles.
        (64, 200, 64, "swap", {"BA": 64, "WG": 1, "STAGES": 8, "LAST": 1}, 1, False),
        # 32 tiles of 128 weight rows: four splits, added by splitk_reduce.
        (100, 4096, 4096, "swap", {"BA": 128, "WG": 2, "STAGES": 6, "LAST": 0}, 4, True),
        # 112 tiles: one split, nothing left to reduce.
        (256, 14336, 4096, "swap", {"BA": 256, "WG": 2, "STAGES": 4, "LAST": 0}, 1, False),
    ],
)
def test_the_table_plans_the_swapped_kernel_up_to_256_rows(m, n, k, kernel, consts, splits, reduce):
    plan = gemm_table.plan(m, n, k, 132)
    assert (plan.kernel, plan.consts, plan.splits, plan.reduce) == (kernel, consts, splits, reduce)
    assert plan.tickets == -(-n // 64) * -(-m // 8)


def test_the_table_plans_the_persistent_kernel_above_256_rows():
    plan = gemm_table.plan(257, 4096, 4096, 132)
    assert (plan.kernel, plan.consts, plan.clusters) == ("tn", {}, 66)


def test_the_sweep_benches_the_table_the_operator_launches():
    sweep = load_sweep()
    with open(sweep.gemm_table.__file__, encoding="utf-8") as theirs, open(gemm_table.__file__, encoding="utf-8") as ours:
        assert theirs.read() == ours.read()
    call = sweep.configuration(100, 4096, 4096, None, None)
    assert "gemm_swap_ab(100, 4096, 4096, a, b, c, 4, ws, tickets, BA = 128, WG = 2, STAGES = 6, LAST = 0)" in call
    assert "splitk_reduce(100, 4096, ws, c, S = 4)" in call
    assert sweep.configuration(1024, 4096, 4096, None, None) == "    gemm_tn(1024, 4096, 4096, a, b, c, 66);\n"


@pytest.fixture(scope="module")
def sm90_examples(tmp_path_factory):
    cache = str(tmp_path_factory.mktemp("cache"))
    load = lambda name: cuk.load(os.path.join(EXAMPLES, name), target="sm_90a", cache_dir=cache)  # noqa: E731
    return load("gemm_small_m_sm90.cuk"), load("gemm_sm90.cuk")


@pytest.mark.parametrize("m", SIZES_M)
def test_every_plan_passes_the_kernels_checks(sm90_examples, m):
    small, large = sm90_examples
    n, k = 200, 520
    plan = gemm_table.plan(m, n, k, 132)
    x, w, y = CudaArray((m, k), "f16"), CudaArray((n, k), "f16"), CudaArray((m, n), "f16")
    if plan.kernel == "tn":
        launch = large.gemm_tn.specialize(T="f16").check(m, n, k, x, w, y, plan.clusters)
        assert launch["grid"][0] == 2 * plan.clusters
        return
    ws, tickets = CudaArray((plan.splits, m, n)), CudaArray((plan.tickets,), "i32")
    gemm = small.gemm_swap_ab.specialize(T="f16", **plan.consts)
    launch = gemm.check(m, n, k, x, w, y, plan.splits, ws, tickets)
    assert launch["grid"][1] == plan.splits
    if plan.reduce:
        small.splitk_reduce.specialize(S=plan.splits, T="f16").check(m, n, ws, y)


@pytest.fixture(scope="module")
def cpu_torch():
    return pytest.importorskip("torch")


@pytest.fixture(scope="module")
def emulated(cpu_torch):
    import cuk.linear

    return cuk.linear.Linear(EXAMPLES, emulate=True)


def reference(x, w):
    return x.float() @ w.float().T


# (m, n, k) on the emulator's 8 SMs: one row in two splits, ragged rows, n and k in two,
# n not a multiple of 8 in one, the wide tile's four splits and splitk_reduce, and gemm_tn.
@pytest.mark.parametrize("m, n, k", [(1, 192, 256), (5, 200, 328), (5, 100, 64), (100, 200, 256), (300, 136, 128)])
@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_each_kernel_matches_torch_on_the_emulator(cpu_torch, emulated, m, n, k, dtype):
    torch = cpu_torch
    x = torch.randn(m, k, dtype=getattr(torch, dtype))
    w = torch.randn(n, k, dtype=getattr(torch, dtype))
    torch.testing.assert_close(emulated(x, w).float(), reference(x, w), rtol=2e-2, atol=2e-2 * k**0.5)


def test_bad_inputs_are_refused_before_the_launch(cpu_torch, emulated):
    torch = cpu_torch
    x = torch.randn(4, 64, dtype=torch.bfloat16)
    w = torch.randn(72, 64, dtype=torch.bfloat16)
    with pytest.raises(ValueError, match=r"bf16 or f16 x and w of one dtype, not torch.bfloat16 and torch.float16"):
        emulated(x, w.half())
    with pytest.raises(ValueError, match=r"bf16 or f16 x and w of one dtype, not torch.float32"):
        emulated(x.float(), w.float())
    with pytest.raises(ValueError, match=r"with one k, not \(4, 64\) and \(72, 56\)"):
        emulated(x, w[:, :56])
    with pytest.raises(ValueError, match=r"with one k, not \(4, 64\) and \(2, 72, 64\)"):
        emulated(x, w.expand(2, 72, 64))
    with pytest.raises(ValueError, match="k is a multiple of 8 .*, not 60"):
        emulated(x[:, :60], w[:, :60])
    with pytest.raises(ValueError, match="gemm_tn stores y with TMA: n is a multiple of 8, not 100"):
        emulated(torch.randn(300, 64, dtype=torch.bfloat16), torch.randn(100, 64, dtype=torch.bfloat16))


def test_empty_shapes_need_no_launch(cpu_torch, emulated):
    torch = cpu_torch
    w = torch.randn(72, 64, dtype=torch.bfloat16)
    assert emulated(torch.randn(0, 64, dtype=torch.bfloat16), w).shape == (0, 72)
    y = emulated(torch.randn(3, 5, 0, dtype=torch.bfloat16), torch.randn(72, 0, dtype=torch.bfloat16))
    assert y.shape == (3, 5, 72) and bool((y == 0).all())


@pytest.fixture(scope="module")
def torch():
    import torch

    if torch.cuda.get_device_capability() != (9, 0):
        pytest.skip("the GEMM examples are sm_90a kernel files")
    return torch


@pytest.fixture(scope="module")
def linear():
    import cuk.linear

    return cuk.linear.Linear(EXAMPLES)


@pytest.mark.gpu
@pytest.mark.parametrize("n, k", WEIGHTS)
@pytest.mark.parametrize("m", SIZES_M)
@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_every_row_of_the_table_matches_torch(torch, linear, m, n, k, dtype):
    dtype = getattr(torch, dtype)
    x = torch.randn(m, k, device="cuda", dtype=dtype)
    w = torch.randn(n, k, device="cuda", dtype=dtype)
    torch.testing.assert_close(linear(x, w).float(), reference(x, w), rtol=2e-2, atol=2e-2 * k**0.5)


@pytest.mark.gpu
def test_views_batches_and_repeated_launches(torch, linear):
    # x (2, 50, k) is 100 rows (splitk_reduce's tile); the weight a transposed copy and x
    # a view starting 2 bytes into its storage, both copied; the tile counters stay zero
    # for the next launch.
    k, n = 1024, 4096
    storage = torch.randn(2 * 50 * k + 1, device="cuda", dtype=torch.bfloat16)
    x = storage[1:].view(2, 50, k)
    w = torch.randn(k, n, device="cuda", dtype=torch.bfloat16).T
    for m in (2, 1):
        y = linear(x[:m], w)
        assert y.shape == (m, 50, n)
        torch.testing.assert_close(y.float(), reference(x[:m], w), rtol=2e-2, atol=2e-2 * k**0.5)
    for one in (x[0, :1], x[0, 0]):
        torch.testing.assert_close(linear(one, w).float(), reference(one, w), rtol=2e-2, atol=2e-2 * k**0.5)
    assert bool((linear._tickets[x.device] == 0).all())


@pytest.mark.gpu
def test_operands_on_two_devices_are_refused(torch, linear):
    x = torch.randn(4, 64, device="cuda", dtype=torch.bfloat16)
    with pytest.raises(ValueError, match="x and w are on one device, not cuda:0 and cpu"):
        linear(x, torch.randn(72, 64, dtype=torch.bfloat16))
