"""``kael.save`` and ``kael.load``: a state dict (or any object of tensors, numbers, strings,
lists, tuples and dicts) to a file and back. Works on any file system Python's ``open`` sees,
Pyodide's in-memory one included.

The file is a pickle. ``load`` reads it with an unpickler that rebuilds only kael tensors,
Parameters, dtypes and plain containers (PyTorch's ``weights_only=True``, its default), so a
file cannot run code; ``weights_only=False`` lifts that for trusted files."""

from __future__ import annotations

import io
import os
import pickle

__all__ = ["save", "load"]

_ALLOWED = {
    ("kael.tensor", "_rebuild"), ("kael.nn.parameter", "Parameter"), ("kael.dtype", "as_dtype"),
    ("collections", "OrderedDict"), ("builtins", "set"), ("builtins", "frozenset"), ("builtins", "complex"),
    ("builtins", "slice"), ("builtins", "range"),
}


class _WeightsUnpickler(pickle.Unpickler):
    def find_class(self, module, name):
        if (module, name) in _ALLOWED:
            return super().find_class(module, name)
        raise pickle.UnpicklingError(
            f"Weights only load failed: {module}.{name} is not an allowed global. Pass weights_only=False "
            "to load a file you trust."
        )


def _opened(f, mode):
    return open(f, mode) if isinstance(f, (str, os.PathLike)) else None


def save(obj, f) -> None:
    """Write ``obj`` to ``f``, a path or a binary file object."""
    fh = _opened(f, "wb")
    try:
        pickle.dump(obj, fh or f, protocol=4)
    finally:
        if fh is not None:
            fh.close()


def load(f, map_location=None, weights_only=True, **ignored):
    """Read what ``save`` wrote; ``map_location`` is accepted and ignored (only the CPU exists)."""
    fh = _opened(f, "rb")
    try:
        src = fh or f
        if isinstance(src, (bytes, bytearray)):
            src = io.BytesIO(src)
        return (_WeightsUnpickler(src) if weights_only else pickle.Unpickler(src)).load()
    finally:
        if fh is not None:
            fh.close()
