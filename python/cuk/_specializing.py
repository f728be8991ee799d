"""Kernels of loaded modules specialized to const values, each compiled once: what the
torch operators of ``cuk.training`` and ``cuk.attention`` share."""


class Specializing:
    """Loaded modules by name, and their kernels specialized on demand."""

    def __init__(self, modules):
        self._modules = modules
        self._kernels = {}

    def kernel(self, module, name, **consts):
        """Kernel ``name`` of ``module`` specialized to ``consts``, compiled once."""
        key = (module, name, tuple(sorted(consts.items())))
        if key not in self._kernels:
            self._kernels[key] = getattr(self._modules[module], name).specialize(**consts)
        return self._kernels[key]
