"""Writable byte views of CPU tensors, for the emulator (``emulate=True``).

The extension copies a tensor's bytes into the emulator's memory and the results back
through the buffer protocol; NumPy makes the view: ``numpy.from_dlpack`` for any DLPack
producer, ``Tensor.numpy()`` for torch (through an integer view of the same width for
bfloat16, which NumPy lacks).
"""


def byte_view(tensor):
    """A one-dimensional ``uint8`` NumPy array over the memory of a contiguous CPU tensor."""
    import numpy

    if type(tensor).__module__.startswith("torch"):
        import torch

        flat = tensor.detach().reshape(-1)
        if flat.dtype == torch.bfloat16:
            flat = flat.view(torch.int16)
        array = flat.numpy()
    elif isinstance(tensor, numpy.ndarray):
        array = tensor.reshape(-1)
    else:
        array = numpy.from_dlpack(tensor).reshape(-1)
    return array.view(numpy.uint8)


def write_back(view, data):
    """Copies ``data`` (bytes of the view's length) into the byte view ``view``."""
    import numpy

    view[:] = numpy.frombuffer(data, dtype=numpy.uint8)
