"""CuK kernels as PyTorch custom operators, so ``torch.compile`` graphs call them
without a graph break.

    import cuk, cuk.torch
    mod = cuk.load("cuk-examples/copy_vectorized.cuk")
    copy = cuk.torch.register(mod.copy_vectorized, mutates=["out"])
    copy(a, out)                      # or torch.ops.cuk.copy_vectorized(a, out)

The operator takes the kernel's parameters in order, less the integers a call may read
from the tensors' shapes (``m`` and ``k`` above), and returns nothing: like the kernel,
it writes into the tensors named in ``mutates``. Its fake (meta) implementation does
nothing, which is all a mutating operator's needs, so tracing never launches the
kernel. The real implementation calls the kernel on PyTorch's current stream: on the
GPU for CUDA tensors, and on the CPU emulator for an ``emulate=True`` module's CPU
tensors.
"""

import torch

_SCHEMA_TYPES = {"int": "int", "float": "float", "bool": "bool"}
_libraries = {}
_registered = {}


def register(kernel, *, mutates, name=None, namespace="cuk"):
    """Registers ``kernel`` (a ``cuk.Kernel``) as ``torch.ops.<namespace>.<name>``.

    ``mutates`` names the tensor parameters the kernel writes; ``name`` defaults to the
    kernel's name. Returns the operator (``torch.ops.<namespace>.<name>``).
    """
    name = name or kernel.name
    qualified = f"{namespace}::{name}"
    if qualified in _registered:
        raise ValueError(f"{qualified} is already registered")
    params = [param for param in kernel.signature if not param["from_tensor"]]
    tensors = [param["name"] for param in params if param["kind"] == "tensor"]
    unknown = sorted(set(mutates) - set(tensors))
    if unknown:
        raise ValueError(
            f"`{kernel.name}` has no tensor parameter {', '.join(unknown)}; its tensors: {', '.join(tensors)}"
        )
    schema = f"{name}({_schema_params(params, set(mutates))}) -> ()"
    library = _libraries.get(namespace)
    if library is None:
        library = _libraries[namespace] = torch.library.Library(namespace, "FRAGMENT")
    library.define(schema)

    def launch(*args):
        kernel(*args)

    library.impl(name, launch, "CUDA")
    library.impl(name, launch, "CPU")
    _register_fake(qualified, _fake)
    _registered[qualified] = kernel
    return getattr(getattr(torch.ops, namespace), name)


def _schema_params(params, mutated):
    """The schema's parameter list: ``Tensor a, Tensor(a0!) out, int n``."""
    parts = []
    for param in params:
        if param["kind"] == "tensor":
            alias = f"(a{len(parts)}!)" if param["name"] in mutated else ""
            parts.append(f"Tensor{alias} {param['name']}")
        else:
            parts.append(f"{_SCHEMA_TYPES[param['kind']]} {param['name']}")
    return ", ".join(parts)


def _fake(*args):
    """A mutating operator's fake implementation: nothing to allocate, nothing to return."""
    return None


def _register_fake(qualified, function):
    register_fake = getattr(torch.library, "register_fake", None)
    if register_fake is None:  # torch older than 2.4
        register_fake = torch.library.impl_abstract
    register_fake(qualified)(function)
