"""Fixtures of the ``cuk`` test suite.

Every test compiles into its own cache folder (``cache_dir``) unless it is about
sharing one. ``CudaArray`` is a stand-in GPU array: an object with
``__cuda_array_interface__`` at any address, which is all a call's checks read, so every
bad input is tested without a GPU (a check that passes reaches the launch, and
``Kernel.check`` stops just before it). Tests marked ``gpu`` need a GPU and torch with
CUDA, and skip themselves otherwise.
"""

import os

import pytest

import cuk

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
EXAMPLES = os.path.join(ROOT, "cuk-examples")
KERNELS = os.path.join(os.path.dirname(__file__), "kernels")
TYPESTR = {"f16": "<f2", "f32": "<f4", "f64": "<f8", "i32": "<i4", "u8": "|u1"}


class CudaArray:
    """A fake device array: shape, dtype, address and byte strides, nothing behind them."""

    def __init__(self, shape, dtype="f32", address=0x7F0000000000, strides=None):
        self.__cuda_array_interface__ = {
            "shape": tuple(shape),
            "typestr": TYPESTR[dtype],
            "data": (address, False),
            "strides": strides,
            "version": 3,
        }


def has_cuda_torch():
    try:
        import torch
    except ImportError:
        return False
    return torch.cuda.is_available()


def pytest_collection_modifyitems(config, items):
    if has_cuda_torch():
        return
    skip = pytest.mark.skip(reason="needs a GPU and torch with CUDA (scripts/gpu-check.sh runs these)")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


def pytest_configure(config):
    config.addinivalue_line("markers", "gpu: needs a GPU and torch with CUDA")


@pytest.fixture
def cache_dir(tmp_path):
    return str(tmp_path / "cache")


@pytest.fixture
def copy_f32(cache_dir):
    """The test kernel, compiled for sm_90a."""
    return cuk.load(os.path.join(KERNELS, "copy_f32.cuk"), target="sm_90a", cache_dir=cache_dir)
