"""kael: a small, readable, PyTorch-shaped tensor library with define-by-run autograd.

Pure Python on two array backends (numpy when it imports, else a pure-Python strided array;
``KAEL_BACKEND=python|numpy`` chooses). The autograd follows kael's ADR 0005.
"""

from __future__ import annotations

from . import autograd, ops
from .autograd.grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from . import cuda
from ._device import device
from .backend import backend_name
from .creation import *  # noqa: F401,F403
from .creation import __all__ as _creation
from .dtype import DType, get_default_dtype, set_default_dtype
from .dtype import bool_ as bool  # noqa: A001  (kael.bool, as torch.bool)
from .dtype import float32, float64, int64
from .ops import *  # noqa: F401,F403
from .ops import __all__ as _ops
from .random import Generator, initial_seed, manual_seed, seed
from .serialization import load, save
from .tensor import Size, Storage, Tensor

float = float32  # noqa: A001
double = float64
long = int64

__version__ = "0.1.0"

__all__ = [
    "Tensor", "Storage", "Size", "DType", "float32", "float64", "int64", "bool", "float", "double",
    "long", "get_default_dtype", "set_default_dtype", "backend_name", "no_grad", "enable_grad",
    "set_grad_enabled", "is_grad_enabled", "inference_mode", "is_inference_mode_enabled",
    "manual_seed", "seed", "initial_seed", "Generator", "autograd", "ops", "is_tensor", "device", "cuda",
    "save", "load", *_creation, *_ops,
]


def is_tensor(obj) -> bool:
    return isinstance(obj, Tensor)


def __getattr__(name):
    # Subpackages that import heavier pieces load on first use: kael.nn, kael.optim, kael.viz, kael.utils.
    if name in ("nn", "optim", "viz", "utils"):
        import importlib

        module = importlib.import_module(f".{name}", __name__)
        globals()[name] = module
        return module
    raise AttributeError(f"module 'kael' has no attribute '{name}'")
