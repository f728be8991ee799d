"""Host time of a kernel call's checks from Python, without a GPU.

`Kernel.check(...)` makes every check a call makes (binding, tensor reads, marshal,
strides, device) and stops before the launch, so it is the CPU-side part of
`test_host_time_per_launch_is_at_most_5_us` (python/tests/test_gpu.py) that a machine
without a GPU can time. Two cases:

- `array-interface`: copy_f32 on stand-in GPU arrays (`__cuda_array_interface__` dicts);
- `torch-cpu`: copy_vectorized on CPU torch tensors in an emulated module (skipped when
  torch cannot be imported), the torch attribute path the GPU test takes.

Each case runs ROUNDS rounds of CALLS calls and prints the best round per call (the
machine is shared, so the minimum is the figure that means something). Run it with the
package on PYTHONPATH (a built wheel installed, or cargo's lib_cuk.so laid out as
python/tests/pytest.rs does); CALLS and ROUNDS may be given (default 20000 and 9):

    PYTHONPATH=<package dir> python3 scripts/bench-python-check.py [CALLS [ROUNDS]]
"""

import os
import sys
import time

import cuk

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
CALLS = int(sys.argv[1]) if len(sys.argv) > 1 else 20_000
ROUNDS = int(sys.argv[2]) if len(sys.argv) > 2 else 9


class CudaArray:
    """A stand-in device array: all a call's checks read, at an aligned address."""

    def __init__(self, shape, address):
        self.__cuda_array_interface__ = {
            "shape": tuple(shape),
            "typestr": "<f4",
            "data": (address, False),
            "strides": None,
            "version": 3,
        }


def best_per_call_us(call):
    for _ in range(1000):
        call()
    best = float("inf")
    for _ in range(ROUNDS):
        start = time.perf_counter()
        for _ in range(CALLS):
            call()
        best = min(best, time.perf_counter() - start)
    return best / CALLS * 1e6


def array_interface_case():
    module = cuk.load(os.path.join(ROOT, "python", "tests", "kernels", "copy_f32.cuk"), target="sm_90a")
    kernel = module.copy_f32
    a = CudaArray((64, 128), 0x7F0000000000)
    out = CudaArray((64, 128), 0x7F0000100000)
    return best_per_call_us(lambda: kernel.check(a, out))


def torch_cpu_case():
    try:
        import torch
    except ImportError:
        return None
    module = cuk.load(os.path.join(ROOT, "cuk-examples", "copy_vectorized.cuk"), emulate=True)
    kernel = module.copy_vectorized
    a = torch.randn(128, 64, dtype=torch.bfloat16)
    out = torch.empty_like(a)
    return best_per_call_us(lambda: kernel.check(a, out))


def main():
    cases = {"array-interface": array_interface_case(), "torch-cpu": torch_cpu_case()}
    for name, micros in cases.items():
        figure = "skipped (no torch)" if micros is None else f"{micros:.3f} us per check"
        print(f"{name}: {figure} (best of {ROUNDS} rounds of {CALLS:,})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
