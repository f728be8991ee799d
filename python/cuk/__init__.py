"""CuK from Python: compile ``.cuk`` files in-process and call their kernels on PyTorch
tensors, DLPack producers and ``__cuda_array_interface__`` objects.

    import cuk, torch
    mod = cuk.load("cuk-examples/copy_vectorized.cuk")
    a = torch.randn(512, 256, dtype=torch.bfloat16, device="cuda")
    out = torch.empty_like(a)
    mod.copy_vectorized(a, out)          # m and k read from a's shape

``load`` and ``compile`` compile for the first GPU's architecture (``target=`` picks
another: ``sm_80``, ``sm_90a``, ``sm_100a``; ``sm_90a`` without a GPU) and keep the cubin
in a disk cache keyed by the source, the instantiations, the target and the compiler, so
a second load compiles nothing. A call checks every argument before anything is
launched (dtype, shape, strides, device, alignment, the kernel's assumptions), raising
``ValueError`` that names the parameter and its ``.cuk`` line, then launches on the
caller's stream (PyTorch's current stream, or ``stream=``) without allocating or
synchronizing. ``emulate=True`` runs kernels on the CPU emulator, on CPU tensors.
``cuk.torch`` registers kernels as ``torch.library`` custom ops.

``autotune`` is ``cukc tune`` from Python: it times every point of a file's ``tune``
blocks on the GPU and stores each bench's winner, which ``load`` and ``compile`` (and
``cukc bench``) then use for the GPU it was timed on, saying so on standard error;
``Kernel.tuned`` gives the winner's values and where they came from, and
``kernel.specialize(...)`` overrides them.

Importing this package needs no CUDA and no torch.
"""

from ._cuk import CompileError, Kernel, Module, __version__, compile, gpu, load, stats
from .tuning import TuneResult, TuneRow, TuneWinner, autotune

__all__ = [
    "CompileError",
    "Kernel",
    "Module",
    "TuneResult",
    "TuneRow",
    "TuneWinner",
    "__version__",
    "autotune",
    "compile",
    "gpu",
    "load",
    "stats",
]
