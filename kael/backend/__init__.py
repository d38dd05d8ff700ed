"""Array backends: numpy when it imports, else the pure-Python strided array.

``KAEL_BACKEND=python`` or ``KAEL_BACKEND=numpy`` chooses explicitly.
"""

from __future__ import annotations

import os

from .base import Backend

__all__ = ["Backend", "get_backend", "backend_name", "load"]

_cache: dict[str, Backend] = {}


def load(name: str) -> Backend:
    """The backend called ``name`` ("numpy" or "python"), created once."""
    if name not in _cache:
        if name == "numpy":
            from .numpy_backend import NumpyBackend

            _cache[name] = NumpyBackend()
        elif name == "python":
            from .python_backend import PythonBackend

            _cache[name] = PythonBackend()
        else:
            raise ValueError(f"unknown backend {name!r}; choose 'numpy' or 'python'")
    return _cache[name]


def _select() -> Backend:
    wanted = os.environ.get("KAEL_BACKEND", "").strip().lower()
    if wanted:
        return load(wanted)
    try:
        return load("numpy")
    except ImportError:
        return load("python")


_active = _select()


def get_backend() -> Backend:
    return _active


def backend_name() -> str:
    """Which array backend new tensors use: ``"numpy"`` or ``"python"``."""
    return _active.name
