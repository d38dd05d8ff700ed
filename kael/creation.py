"""Creating tensors: from data, filled, ranges, identity, and seeded random numbers."""

from __future__ import annotations

import functools
import math

from . import dtype as dt
from ._device import as_device
from .backend.nested import flatten_nested, nested_shape
from .random import default_generator
from .tensor import B, Tensor, _wrap

__all__ = [
    "tensor", "as_tensor", "from_numpy", "zeros", "ones", "full", "empty", "arange", "linspace",
    "eye", "rand", "randn", "randint", "randperm", "zeros_like", "ones_like", "full_like",
    "empty_like", "rand_like", "randn_like", "randint_like",
]


def _on_cpu(fn):
    """Accept PyTorch's ``device=`` (the CPU, however named) and ``pin_memory=``."""

    @functools.wraps(fn)
    def create(*args, device=None, pin_memory=False, **kwargs):
        if device is not None:
            as_device(device)
        return fn(*args, **kwargs)

    return create


def _finish(t: Tensor, requires_grad: bool) -> Tensor:
    if requires_grad:
        t.requires_grad_()
    return t


def _infer_dtype(values) -> dt.DType:
    if not values:
        return dt.get_default_dtype()
    kinds = set(map(type, values))
    if kinds <= {bool}:
        return dt.bool_
    if kinds <= {bool, int}:
        return dt.int64
    for k in kinds:
        if k not in (bool, int, float):
            raise TypeError(f"tensor(): could not convert an element of type {k.__name__} to a number")
    return dt.get_default_dtype()


def _to_python(data):
    """numpy arrays and scalars, and kael tensors inside lists, become Python numbers."""
    if isinstance(data, Tensor):
        return data.tolist()
    if hasattr(data, "tolist") and not isinstance(data, (list, tuple)):
        return data.tolist()
    if isinstance(data, (list, tuple)):
        return [_to_python(x) for x in data]
    return data


@_on_cpu
def tensor(data, *, dtype=None, requires_grad=False) -> Tensor:
    """A new tensor (always a copy) from a number, nested lists, a numpy array or a tensor."""
    if isinstance(data, Tensor):
        t = data.detach().clone() if dtype is None else data.detach().to(dt.as_dtype(dtype)).clone()
        return _finish(t, requires_grad)
    data = _to_python(data)
    shape = nested_shape(data)
    flat = flatten_nested(data, len(shape))
    dtype = dt.as_dtype(dtype) if dtype is not None else _infer_dtype(flat)
    return _finish(_wrap(B.from_flat(flat, shape, dtype)), requires_grad)


@_on_cpu
def as_tensor(data, dtype=None) -> Tensor:
    if isinstance(data, Tensor) and (dtype is None or data.dtype is dt.as_dtype(dtype)):
        return data
    return tensor(data, dtype=dtype)


def from_numpy(array) -> Tensor:
    """A tensor sharing memory with ``array`` on the numpy backend (a copy on the python one)."""
    if B.name == "numpy":
        import numpy as np

        if array.dtype not in (np.float32, np.float64, np.int64, np.bool_):
            raise TypeError(f"can't convert np.ndarray of type {array.dtype}; supported: float32, float64, int64, bool")
        return _wrap(array)
    return tensor(array.tolist(), dtype=dt.as_dtype(str(array.dtype)))


def _size(size) -> tuple:
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    size = tuple(int(s) for s in size)
    for s in size:
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {list(size)}")
    return size


def _dtype(dtype, default=None) -> dt.DType:
    return dt.as_dtype(dtype) if dtype is not None else (default or dt.get_default_dtype())


@_on_cpu
def full(size, fill_value, *, dtype=None, requires_grad=False) -> Tensor:
    size = _size((size,))
    d = _dtype(dtype, dt.scalar_dtype(fill_value) if not isinstance(fill_value, float) else None)
    return _finish(_wrap(B.full(size, fill_value, d)), requires_grad)


@_on_cpu
def zeros(*size, dtype=None, requires_grad=False) -> Tensor:
    return _finish(_wrap(B.full(_size(size), 0, _dtype(dtype))), requires_grad)


@_on_cpu
def ones(*size, dtype=None, requires_grad=False) -> Tensor:
    return _finish(_wrap(B.full(_size(size), 1, _dtype(dtype))), requires_grad)


@_on_cpu
def empty(*size, dtype=None, requires_grad=False) -> Tensor:
    """Like ``zeros``: kael never hands out uninitialized memory."""
    return zeros(*size, dtype=dtype, requires_grad=requires_grad)


@_on_cpu
def arange(start, end=None, step=1, *, dtype=None, requires_grad=False) -> Tensor:
    if end is None:
        start, end = 0, start
    if step == 0:
        raise RuntimeError("arange: step must be nonzero")
    if (end - start) / step < 0:
        raise RuntimeError(f"arange: upper bound {end} and lower bound {start} inconsistent with step sign {step}")
    all_int = all(isinstance(v, int) for v in (start, end, step))
    d = _dtype(dtype, dt.int64 if all_int else None)
    return _finish(_wrap(B.arange(start, end, step, d)), requires_grad)


@_on_cpu
def linspace(start, end, steps, *, dtype=None, requires_grad=False) -> Tensor:
    if steps < 0:
        raise RuntimeError("linspace: number of steps must be non-negative")
    return _finish(_wrap(B.linspace(start, end, int(steps), _dtype(dtype))), requires_grad)


@_on_cpu
def eye(n, m=None, *, dtype=None, requires_grad=False) -> Tensor:
    return _finish(_wrap(B.eye(int(n), int(n if m is None else m), _dtype(dtype))), requires_grad)


def _numel(size) -> int:
    return math.prod(size)


@_on_cpu
def rand(*size, dtype=None, requires_grad=False, generator=None) -> Tensor:
    """Uniform samples in [0, 1) from kael's seeded generator."""
    size = _size(size)
    g = generator or default_generator
    return _finish(_wrap(B.from_flat(g.uniform(_numel(size)), size, _dtype(dtype))), requires_grad)


@_on_cpu
def randn(*size, dtype=None, requires_grad=False, generator=None) -> Tensor:
    """Standard normal samples from kael's seeded generator."""
    size = _size(size)
    g = generator or default_generator
    return _finish(_wrap(B.from_flat(g.normal(_numel(size)), size, _dtype(dtype))), requires_grad)


@_on_cpu
def randint(low, high=None, size=(), *, dtype=None, generator=None) -> Tensor:
    """Integers in [low, high) (``randint(high, size)`` starts at 0)."""
    if isinstance(high, (tuple, list)):  # randint(high, size)
        low, high, size = 0, low, high
    if high is None:
        low, high = 0, low
    size = _size((size,))
    g = generator or default_generator
    return _wrap(B.from_flat(g.integers(_numel(size), int(low), int(high)), size, _dtype(dtype, dt.int64)))


@_on_cpu
def randperm(n, *, dtype=None, generator=None) -> Tensor:
    g = generator or default_generator
    return _wrap(B.from_flat(g.permutation(int(n)), (int(n),), _dtype(dtype, dt.int64)))


@_on_cpu
def zeros_like(t, *, dtype=None, requires_grad=False):
    return zeros(t.shape, dtype=dtype or t.dtype, requires_grad=requires_grad)


@_on_cpu
def ones_like(t, *, dtype=None, requires_grad=False):
    return ones(t.shape, dtype=dtype or t.dtype, requires_grad=requires_grad)


@_on_cpu
def full_like(t, fill_value, *, dtype=None, requires_grad=False):
    return full(t.shape, fill_value, dtype=dtype or t.dtype, requires_grad=requires_grad)


@_on_cpu
def empty_like(t, *, dtype=None, requires_grad=False):
    return zeros_like(t, dtype=dtype, requires_grad=requires_grad)


@_on_cpu
def rand_like(t, *, dtype=None, requires_grad=False):
    return rand(t.shape, dtype=dtype or t.dtype, requires_grad=requires_grad)


@_on_cpu
def randn_like(t, *, dtype=None, requires_grad=False):
    return randn(t.shape, dtype=dtype or t.dtype, requires_grad=requires_grad)


@_on_cpu
def randint_like(t, low, high=None, *, dtype=None):
    return randint(low, high, t.shape, dtype=dtype or t.dtype)
