"""Argument checks: every bad input is an exception naming the parameter and its
``.cuk`` line, raised before anything is launched. ``Kernel.check`` makes a call's
checks and returns the launch configuration; a call makes the same checks, so without
a GPU a good call reaches the launch and fails there, saying there is no GPU."""

import os

import numpy
import pytest

import cuk
from conftest import EXAMPLES, CudaArray

M, K = 64, 256
ROW = (K * 4, 4)  # byte strides of a row-major (M, K) f32 array
LINE_A = r"copy_f32\.cuk:10: `copy_f32`: "
LINE_OUT = r"copy_f32\.cuk:11: `copy_f32`: "


def arrays(**overrides):
    a = CudaArray((M, K), **overrides)
    out = CudaArray((M, K), address=0x7F0000100000)
    return a, out


def test_a_good_call_gets_its_launch_with_extents_read_from_the_tensors(copy_f32):
    launch = copy_f32.copy_f32.check(*arrays())
    assert launch == {"grid": [K // 64, M // 32, 1], "block": [128, 1, 1], "shared_bytes": 32 * 64 * 4}


def test_extents_may_be_passed_in_order_or_by_name(copy_f32):
    kernel = copy_f32.copy_f32
    assert kernel.check(M, K, *arrays()) == kernel.check(*arrays())
    assert kernel.check(*arrays(), k=K) == kernel.check(*arrays())
    a, out = arrays()
    assert kernel.check(out=out, a=a, m=M, k=K)["grid"] == [K // 64, M // 32, 1]


def test_explicit_row_major_strides_are_accepted(copy_f32):
    assert copy_f32.copy_f32.check(*arrays(strides=ROW))["block"] == [128, 1, 1]


def test_a_wrong_dtype_names_the_parameter_and_line(copy_f32):
    with pytest.raises(ValueError, match=LINE_A + r"`a` holds f32, but this tensor holds f16"):
        copy_f32.copy_f32.check(*arrays(dtype="f16"))


def test_a_cpu_tensor_is_refused(copy_f32):
    a = numpy.zeros((M, K), dtype=numpy.float32)
    _, out = arrays()
    with pytest.raises(ValueError, match=LINE_A + r"`a` is on cpu, but the kernel runs on a GPU"):
        copy_f32.copy_f32.check(a, out)


def test_a_non_contiguous_tensor_is_refused(copy_f32):
    transposed = (4, M * 4)
    with pytest.raises(ValueError, match=LINE_A + r"`a` has strides \[1, 64\], but the kernel reads it with strides \[256, 1\]"):
        copy_f32.copy_f32.check(*arrays(strides=transposed))
    padded = (K * 8, 4)
    with pytest.raises(ValueError, match=r"`a` has strides \[512, 1\]"):
        copy_f32.copy_f32.check(*arrays(strides=padded))


def test_a_misaligned_pointer_is_refused(copy_f32):
    with pytest.raises(ValueError, match=LINE_A + r"`a` starts at address 0x7f0000000004, which is not a multiple of 16 bytes"):
        copy_f32.copy_f32.check(*arrays(address=0x7F0000000004))


def test_an_extent_that_breaks_an_assumption_is_refused(copy_f32):
    a, out = CudaArray((M, 102)), CudaArray((M, 102))
    with pytest.raises(ValueError, match=r"copy_f32\.cuk:9: `copy_f32`: `k` = 102 must be a multiple of 4"):
        copy_f32.copy_f32.check(a, out)


def test_tensors_that_disagree_are_refused(copy_f32):
    a, out = CudaArray((M, K)), CudaArray((M, 128))
    with pytest.raises(ValueError, match=LINE_OUT + r"`out` needs a tensor of shape \(64, 256\) with these arguments, but this one has shape \(64, 128\)"):
        copy_f32.copy_f32.check(a, out)
    with pytest.raises(ValueError, match=LINE_A + r"`a` needs a tensor of shape \(32, 256\)"):
        copy_f32.copy_f32.check(*arrays(), m=32)


def test_too_few_arguments_are_a_type_error(copy_f32):
    with pytest.raises(TypeError, match=r"copy_f32\.cuk:11: `copy_f32` takes 4 arguments \(m, k, a, out\), or 2 \(a, out\) with m, k read from the tensors; 1 was given"):
        copy_f32.copy_f32.check(CudaArray((M, K)))


def test_too_many_arguments_are_a_type_error(copy_f32):
    with pytest.raises(TypeError, match=r"copy_f32\.cuk:8: `copy_f32` takes 4 arguments .*; 5 were given"):
        copy_f32.copy_f32.check(M, K, *arrays(), 1)


def test_an_unknown_keyword_is_a_type_error(copy_f32):
    with pytest.raises(TypeError, match=r"`copy_f32` has no parameter `n`; its parameters: m, k, a, out"):
        copy_f32.copy_f32.check(*arrays(), n=3)


def test_a_non_tensor_for_a_tensor_is_refused(copy_f32):
    with pytest.raises(ValueError, match=LINE_OUT + r"`out` is a tensor, but it is a list, not a tensor"):
        copy_f32.copy_f32.check(CudaArray((M, K)), [1.0])


def test_an_integer_out_of_range_is_refused(copy_f32):
    with pytest.raises(ValueError, match=r"`copy_f32`: 4294967296 does not fit `m: i32`"):
        copy_f32.copy_f32.check(2**32, K, *arrays())


def test_scalars_are_checked(cache_dir):
    axpy = cuk.load(os.path.join(EXAMPLES, "axpy.cuk"), target="sm_90a", cache_dir=cache_dir).axpy
    x, y = CudaArray((1000,)), CudaArray((1000,), address=0x7F0000100000)
    assert axpy.check(2.0, x, y)["grid"][0] >= 1
    assert axpy.check(x, y, alpha=2) == axpy.check(2.0, x, y)
    with pytest.raises(ValueError, match=r"axpy\.cuk:18: `axpy`: `alpha` is a float \(f32\), but a value of type `str` was given"):
        axpy.check("2", x, y)
    with pytest.raises(ValueError, match=r"does not fit `alpha: f32`"):
        axpy.check(1e300, x, y)


@pytest.mark.skipif(cuk.gpu() is not None, reason="tests the machine without a GPU")
def test_a_good_call_without_a_gpu_says_so(copy_f32):
    with pytest.raises(RuntimeError, match=r"cannot run .*copy_f32\.cuk on the GPU: no CUDA driver"):
        copy_f32.copy_f32(*arrays())


@pytest.mark.gpu
def test_a_stream_must_be_a_stream(copy_f32):
    with pytest.raises(TypeError, match=r"`stream` must be a CUDA stream handle"):
        copy_f32.copy_f32(*arrays(), stream="default")
