"""The array interface of ``base.Backend`` on the pure-Python strided ``PyArray``.

Standard library only, so it runs in Pyodide without numpy; results match ``NumpyBackend``.
The work is done in ``pyarray/``: ``array`` (buffers, strided gather and scatter), ``shape``,
``indexing``, ``elementwise``, ``reduce`` and ``matmul``.
"""

from __future__ import annotations

import math
from array import array

from .. import dtype as dt
from .base import Backend
from .errors import fmt_shape
from .nested import flatten_nested, nested_shape
from .pyarray import elementwise, indexing, reduce, shape as shapes
from .pyarray.array import INT64_MIN, PyArray, c_strides, first, new, same_memory, tolist, values
from .pyarray.elementwise import cast_values, scalar
from .pyarray.matmul import matmul


def _size(shape) -> int:
    n = 1
    for s in shape:
        n *= s
    return n


def _from_values(vals: list, shape: tuple, dtype) -> PyArray:
    """An array from Python numbers of any kind, converted as numpy's ``np.array`` would."""
    if dtype is dt.bool_:
        vals = [bool(v) for v in vals]
    elif dtype is dt.int64:
        try:
            buf = array("q", vals)
        except TypeError:  # floats among the ints: truncated toward zero
            buf = array("q", [v if type(v) is int else int(v) for v in vals])
        except OverflowError:
            raise OverflowError(f"value out of range for int64 (range {INT64_MIN} to {-INT64_MIN - 1})") from None
        return PyArray(buf, shape, c_strides(shape), 0, dtype)
    return new(vals, shape, dtype)


class PythonBackend(Backend):
    name = "python"
    array_type = PyArray

    # -- construction ----------------------------------------------------------------------
    def from_nested(self, data, dtype):
        shape = nested_shape(data)
        return _from_values(flatten_nested(data, len(shape)), shape, dtype)

    def from_flat(self, values, shape, dtype):
        vals = list(values)
        shape = tuple(shape)
        if len(vals) != _size(shape):
            raise ValueError(f"shape {fmt_shape(shape)} is invalid for input of size {len(vals)}")
        return _from_values(vals, shape, dtype)

    def full(self, shape, value, dtype):
        shape = tuple(shape)
        return new([scalar(value, dtype)] * _size(shape), shape, dtype)

    def arange(self, start, stop, step, dtype):
        n = max(0, math.ceil((stop - start) / step))
        if dtype.is_floating_point or isinstance(start, float) or isinstance(step, float):
            fstart, fstep = float(start), float(step)
            vals, src = [fstart + fstep * i for i in range(n)], dt.float64
        else:
            vals, src = [start + step * i for i in range(n)], dt.int64
        return new(cast_values(vals, src, dtype), (n,), dtype)

    def linspace(self, start, end, steps, dtype):
        # numpy's algorithm, in float64, then cast.
        start, end = float(start), float(end)
        div = steps - 1
        delta = end - start
        if div > 0:
            step = delta / div
            if step == 0:
                vals = [i / div * delta + start for i in range(steps)]
            else:
                vals = [i * step + start for i in range(steps)]
            vals[-1] = end
        else:
            vals = [i * delta + start for i in range(steps)]
        return new(cast_values(vals, dt.float64, dtype), (steps,), dtype)

    def eye(self, n, m, dtype):
        m = n if m is None else m
        vals = [0] * (n * m)
        for i in range(min(n, m)):
            vals[i * m + i] = 1
        return new(cast_values(vals, dt.int64, dtype), (n, m), dtype)

    # -- introspection -----------------------------------------------------------------------
    def shape(self, a):
        return a.shape

    def dtype(self, a):
        return a.dtype

    def strides(self, a):
        return a.strides

    def offset(self, a):
        return a.offset

    def is_contiguous(self, a):
        return a.contiguous

    def tolist(self, a):
        return tolist(a)

    def flat(self, a):
        return values(a)

    def item(self, a):
        if a.size != 1:
            raise ValueError(f"a Tensor with {a.size} elements cannot be converted to Scalar")
        return first(a)

    def same_memory(self, a, b):
        return same_memory(a, b)

    # -- conversion and copies -----------------------------------------------------------------
    def astype(self, a, dtype):
        return elementwise.astype(a, dtype)

    def copy(self, a):
        return new(values(a), a.shape, a.dtype)

    # -- views ------------------------------------------------------------------------------------
    def view(self, a, shape):
        return shapes.view(a, shape)

    def permute(self, a, dims):
        return shapes.permute(a, tuple(dims))

    def expand(self, a, shape):
        return shapes.expand(a, shape)

    def getitem(self, a, key):
        return indexing.getitem(a, key)

    def setitem(self, a, key, value):
        indexing.setitem(a, key, value)

    def index_add_(self, a, key, values):
        indexing.index_add_(a, key, values)

    # -- compute ----------------------------------------------------------------------------------
    def unary(self, op, a):
        return elementwise.unary(op, a)

    def binary(self, op, a, b):
        return elementwise.binary(op, a, b)

    def binary_(self, op, a, b):
        elementwise.binary_(op, a, b)

    def copy_(self, dst, src):
        indexing.copy_(dst, src)

    def fill_(self, a, value):
        elementwise.fill_(a, value)

    def where(self, cond, a, b):
        return elementwise.where(cond, a, b)

    def clip(self, a, lo, hi):
        return elementwise.clip(a, lo, hi)

    def sum(self, a, dims, keepdim):
        return reduce.sum_over(a, dims, keepdim)

    def amax(self, a, dims, keepdim):
        return reduce.amax(a, dims, keepdim)

    def amin(self, a, dims, keepdim):
        return reduce.amin(a, dims, keepdim)

    def argmax(self, a, dim, keepdim):
        return reduce.argmax(a, dim, keepdim)

    def argmin(self, a, dim, keepdim):
        return reduce.argmin(a, dim, keepdim)

    def matmul(self, a, b):
        return matmul(a, b)

    def concat(self, arrays, dim):
        return shapes.concat(arrays, dim)
