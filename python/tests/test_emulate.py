"""``emulate=True``: kernels run on the CPU emulator, on CPU arrays (NumPy here; torch
CPU tensors in test_torch.py), with the same argument checks as on the GPU."""

import os

import numpy
import pytest

import cuk
from conftest import EXAMPLES, KERNELS, ROOT, CudaArray


def emulated(name):
    return cuk.load(os.path.join(EXAMPLES, name), emulate=True)


def test_the_copy_runs_on_the_emulator():
    mod = cuk.load(os.path.join(KERNELS, "copy_f32.cuk"), emulate=True)
    assert mod.emulated and mod.manifest is None
    a = numpy.random.default_rng(0).standard_normal((64, 128), dtype=numpy.float32)
    out = numpy.zeros_like(a)
    mod.copy_f32(a, out)
    numpy.testing.assert_array_equal(out, a)


def test_a_specialized_kernel_runs_on_the_emulator():
    kernel = cuk.load(os.path.join(KERNELS, "copy_f32.cuk"), emulate=True).copy_f32.specialize(BK=32)
    a = numpy.arange(32 * 64, dtype=numpy.float32).reshape(32, 64)
    out = numpy.zeros_like(a)
    kernel(a, out)
    numpy.testing.assert_array_equal(out, a)


def test_axpy_computes_with_its_scalar():
    x = numpy.arange(1000, dtype=numpy.float32)
    y = numpy.ones(1000, dtype=numpy.float32)
    emulated("axpy.cuk").axpy(2.0, x, y)
    numpy.testing.assert_allclose(y, 2.0 * numpy.arange(1000) + 1.0)


def test_elementwise_add_matches_numpy():
    rng = numpy.random.default_rng(1)
    a = rng.standard_normal((100, 68), dtype=numpy.float32)
    b = rng.standard_normal((100, 68), dtype=numpy.float32)
    c = numpy.zeros_like(a)
    emulated("elementwise_add.cuk").elementwise_add(a, b, c)
    numpy.testing.assert_allclose(c, a + b, rtol=1e-6)


def test_elementwise_add_refuses_rows_its_vectors_do_not_divide():
    # Each thread moves rows of 4 floats as one 16-byte access: n must be a multiple of 4.
    a = numpy.zeros((100, 70), dtype=numpy.float32)
    with pytest.raises(ValueError, match=r"`n` = 70 must be a multiple of 4"):
        emulated("elementwise_add.cuk").elementwise_add(a, a, numpy.zeros_like(a))


def test_the_emulator_takes_only_cpu_arrays():
    mod = cuk.load(os.path.join(KERNELS, "copy_f32.cuk"), emulate=True)
    a = CudaArray((64, 128))
    out = numpy.zeros((64, 128), dtype=numpy.float32)
    with pytest.raises(ValueError, match=r"copy_f32\.cuk:10: `copy_f32`: `a` is on cuda:0, but this module runs on the CPU emulator"):
        mod.copy_f32(a, out)


def test_the_emulator_checks_arguments_like_the_gpu():
    mod = emulated("axpy.cuk")
    x = numpy.arange(10, dtype=numpy.float64)
    y = numpy.ones(10, dtype=numpy.float32)
    with pytest.raises(ValueError, match=r"axpy\.cuk:18: `axpy`: `x` holds f32, but this tensor holds f64"):
        mod.axpy(1.0, x, y)


def test_a_dtype_specialization_runs_on_its_dtype():
    mod = cuk.load(os.path.join(ROOT, "tests", "control", "dtype_params.cuk"), emulate=True)
    fill = mod.fill.specialize(T="f64")
    assert fill.entry == "fill__T_f64"
    x = numpy.zeros(300, dtype=numpy.float64)
    fill(x, -0.75)
    numpy.testing.assert_array_equal(x, numpy.full(300, -0.75))
    with pytest.raises(ValueError, match=r"`x` holds f64, but this tensor holds f32"):
        fill(numpy.zeros(300, dtype=numpy.float32), 1.0)
