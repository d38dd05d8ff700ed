"""The array interface of ``base.Backend`` on numpy ndarrays."""

from __future__ import annotations

import math

import numpy as np

from .. import dtype as dt
from .base import Backend
from .errors import broadcast_error, matmul_error

try:  # numpy >= 2: switch error handling with one ContextVar set, ~20x cheaper than np.errstate
    from numpy._core._ufunc_config import _extobj_contextvar, _make_extobj

    _IGNORE = _make_extobj(all="ignore")

    class _Quiet:
        """Silence numpy's floating-point warnings (PyTorch gives inf/nan without a word)."""

        __slots__ = ("token",)

        def __enter__(self):
            self.token = _extobj_contextvar.set(_IGNORE)

        def __exit__(self, *exc):
            _extobj_contextvar.reset(self.token)

    def quiet():
        return _Quiet()

    def _quiet_set():
        return _extobj_contextvar.set(_IGNORE)

    _quiet_reset = _extobj_contextvar.reset

except ImportError:  # numpy 1.x

    def quiet():
        return np.errstate(all="ignore")

    def _quiet_set():
        state = np.errstate(all="ignore")
        state.__enter__()
        return state

    def _quiet_reset(state):
        state.__exit__(None, None, None)


_NP = {dt.float32: np.float32, dt.float64: np.float64, dt.int64: np.int64, dt.bool_: np.bool_}
_KAEL = {np.dtype(v): k for k, v in _NP.items()}


def _erf(x):
    flat = x.ravel()
    out = np.fromiter((math.erf(v) for v in flat.tolist()), dtype=x.dtype, count=flat.size)
    return out.reshape(x.shape)


def _sign(x):
    if x.dtype.kind == "b":
        return x.copy()
    if x.dtype.kind != "f":
        return np.sign(x)
    one = x.dtype.type(1)
    return np.where(x > 0, one, np.where(x < 0, -one, x.dtype.type(0)))  # nan and -0.0 give 0.0


def _sigmoid(x):
    # 1 / (1 + exp(-x)) without overflow warnings for large negative x.
    out = np.empty_like(x)
    pos = x >= 0
    out[pos] = 1.0 / (1.0 + np.exp(-x[pos]))
    e = np.exp(x[~pos])
    out[~pos] = e / (1.0 + e)
    return out


_UNARY = {
    "neg": np.negative,
    "abs": np.abs,
    "exp": np.exp,
    "log": np.log,
    "sqrt": np.sqrt,
    "sin": np.sin,
    "cos": np.cos,
    "tanh": np.tanh,
    "sigmoid": _sigmoid,
    "relu": lambda x: np.maximum(x, x.dtype.type(0)),
    "sign": _sign,
    "erf": _erf,
    "log1p": np.log1p,
    "expm1": np.expm1,
    "floor": np.floor,
    "ceil": np.ceil,
    "logical_not": np.logical_not,
    "square": np.square,
    "reciprocal": lambda x: np.divide(x.dtype.type(1), x),
    "bitwise_not": np.invert,
}

def _remainder(a, b, out=None, casting="same_kind"):
    """PyTorch's float remainder: ``fmod`` moved into ``b``'s sign, so a zero result keeps the
    sign of ``a`` (numpy's, like Python's ``%``, takes ``b``'s: ``0.0 % -2.0`` is -0.0)."""
    a, b = np.asarray(a), np.asarray(b)
    if np.result_type(a, b).kind != "f":
        return np.remainder(a, b, out=out, casting=casting)
    m = np.fmod(a, b)
    r = np.where((m != 0) & ((b < 0) != (m < 0)), m + b, m)
    if out is None:
        return r
    np.copyto(out, r, casting=casting)
    return out


_BINARY = {
    "add": np.add,
    "sub": np.subtract,
    "mul": np.multiply,
    "div": np.true_divide,
    "pow": np.power,
    "maximum": np.maximum,
    "minimum": np.minimum,
    "floordiv": np.floor_divide,
    "remainder": _remainder,
    "eq": np.equal,
    "ne": np.not_equal,
    "lt": np.less,
    "le": np.less_equal,
    "gt": np.greater,
    "ge": np.greater_equal,
    "logical_and": np.logical_and,
    "logical_or": np.logical_or,
    "logical_xor": np.logical_xor,
    "bitwise_and": np.bitwise_and,
    "bitwise_or": np.bitwise_or,
    "bitwise_xor": np.bitwise_xor,
}


def _index_error(e: IndexError, a) -> IndexError:
    """numpy's indexing errors in the python backend's words ("dim", not "axis")."""
    message = str(e)
    if message.startswith("too many indices"):
        return IndexError(f"too many indices for tensor of dimension {a.ndim}")
    return IndexError(message.replace(" for axis ", " for dim "))


class NumpyBackend(Backend):
    name = "numpy"
    array_type = np.ndarray

    # -- construction ----------------------------------------------------------------------
    def from_nested(self, data, dtype):
        from .nested import check_nested

        check_nested(data)
        return np.array(data, dtype=_NP[dtype])

    def from_flat(self, values, shape, dtype):
        return np.array(values, dtype=_NP[dtype]).reshape(shape)

    def full(self, shape, value, dtype):
        if not shape:
            return np.array(value, dtype=_NP[dtype])  # the 0-d constants of every `x + 1`
        return np.full(shape, value, dtype=_NP[dtype])

    def arange(self, start, stop, step, dtype):
        n = max(0, math.ceil((stop - start) / step))
        return (start + step * np.arange(n, dtype=np.float64 if dtype.is_floating_point else np.int64)).astype(_NP[dtype])

    def linspace(self, start, end, steps, dtype):
        return np.linspace(start, end, steps, dtype=np.float64).astype(_NP[dtype])

    def eye(self, n, m, dtype):
        return np.eye(n, m, dtype=_NP[dtype])

    # -- introspection -----------------------------------------------------------------------
    def shape(self, a):
        return a.shape

    def dtype(self, a):
        return _KAEL[a.dtype]

    def strides(self, a):
        size = a.itemsize
        return tuple(s // size for s in a.strides)

    def offset(self, a):
        base = a
        while True:
            up = base.base
            if not isinstance(up, np.ndarray):
                up = getattr(up, "base", None)  # as_strided (expand) keeps its array in a DummyArray
                if not isinstance(up, np.ndarray):
                    break
            base = up
        return (a.__array_interface__["data"][0] - base.__array_interface__["data"][0]) // a.itemsize

    def is_contiguous(self, a):
        return a.flags.c_contiguous

    def tolist(self, a):
        return a.tolist()

    def flat(self, a):
        return a.ravel().tolist()

    def item(self, a):
        if a.size != 1:
            raise ValueError(f"a Tensor with {a.size} elements cannot be converted to Scalar")
        return a.item()

    def same_memory(self, a, b):
        return np.shares_memory(a, b)

    # -- conversion and copies -----------------------------------------------------------------
    def astype(self, a, dtype):
        with quiet():
            return a.astype(_NP[dtype], order="C")  # np.ascontiguousarray would make a 0-d array 1-d

    def cast(self, a, dtype):
        if a.flags.c_contiguous or any(st == 0 and n > 1 for st, n in zip(a.strides, a.shape)):
            # (an expanded input: C order, as PyTorch)
            return self.astype(a, dtype)
        with quiet():
            return a.astype(_NP[dtype], order="K")  # the input's order of strides, as PyTorch

    def copy(self, a):
        return np.array(a, order="C", copy=True)

    # -- views ------------------------------------------------------------------------------------
    def view(self, a, shape):
        try:
            v = a.view()
            v.shape = shape
            return v
        except AttributeError:
            return None

    def permute(self, a, dims):
        return a.transpose(dims)

    def expand(self, a, shape):
        try:
            out = np.broadcast_to(a, shape)
        except ValueError:
            raise broadcast_error(a.shape, shape) from None
        if a.flags.writeable:  # writable, as PyTorch's expand is (fill_ writes through it)
            out = np.lib.stride_tricks.as_strided(a, out.shape, out.strides)
        return out

    def getitem(self, a, key):
        try:
            out = a[key]
        except IndexError as e:
            raise _index_error(e, a) from None
        if not isinstance(out, np.ndarray):
            # numpy gives a scalar copy for a[i, j]; with a trailing Ellipsis it gives the 0-d view
            # a tensor needs (x[0].fill_(1) must write into x).
            out = a[key + (Ellipsis,)]
        elif not out.flags.c_contiguous and any(isinstance(k, np.ndarray) for k in key):
            out = np.array(out, order="C")  # PyTorch's advanced-index results are contiguous
        return out

    def setitem(self, a, key, value):
        try:
            a[key] = value
        except IndexError as e:
            raise _index_error(e, a) from None
        except ValueError:
            raise broadcast_error(np.shape(value), a[key].shape) from None

    def index_add_(self, a, key, values):
        np.add.at(a, key, values)

    # -- compute ----------------------------------------------------------------------------------
    def unary(self, op, a):
        token = _quiet_set()
        try:
            out = _UNARY[op](a)
        finally:
            _quiet_reset(token)
        return out if type(out) is np.ndarray else np.asarray(out)

    def binary(self, op, a, b):
        token = _quiet_set()
        try:
            out = _BINARY[op](a, b)
        except ValueError:
            raise broadcast_error(a.shape, b.shape) from None
        finally:
            _quiet_reset(token)
        return out if type(out) is np.ndarray else np.asarray(out)

    def binary_(self, op, a, b):
        try:
            with quiet():
                _BINARY[op](a, b, out=a, casting="unsafe")
        except ValueError:
            raise broadcast_error(b.shape, a.shape) from None

    def copy_(self, dst, src):
        try:
            np.copyto(dst, src, casting="unsafe")
        except ValueError:
            raise broadcast_error(src.shape, dst.shape) from None

    def fill_(self, a, value):
        a.fill(value)

    def where(self, cond, a, b):
        try:
            return np.where(cond, a, b)
        except ValueError:
            raise broadcast_error(a.shape, b.shape, cond.shape) from None

    def clip(self, a, lo, hi):
        # PyTorch keeps x unless it is past a bound (clamp(-0.0, min=0.0) is -0.0; numpy's
        # maximum gives 0.0); a nan in x or in a bound propagates
        out = a
        if lo is not None:
            lo = a.dtype.type(lo)
            out = np.where((out < lo) | (lo != lo), lo, out)
        if hi is not None:
            hi = a.dtype.type(hi)
            out = np.where((out > hi) | (hi != hi), hi, out)
        return np.array(out, copy=True) if out is a else np.asarray(out)  # 0-d stays an array

    def sum(self, a, dims, keepdim):
        if a.dtype == np.bool_:
            a = a.astype(np.int64)
        return np.asarray(np.sum(a, axis=dims, keepdims=keepdim))

    def amax(self, a, dims, keepdim):
        return np.asarray(np.max(a, axis=dims, keepdims=keepdim))

    def amin(self, a, dims, keepdim):
        return np.asarray(np.min(a, axis=dims, keepdims=keepdim))

    def argmax(self, a, dim, keepdim):
        return np.asarray(np.argmax(a, axis=dim, keepdims=keepdim), dtype=np.int64)

    def argmin(self, a, dim, keepdim):
        return np.asarray(np.argmin(a, axis=dim, keepdims=keepdim), dtype=np.int64)

    def matmul(self, a, b):
        try:
            return np.asarray(np.matmul(a, b))
        except ValueError:
            raise matmul_error(a.shape, b.shape) from None

    def concat(self, arrays, dim):
        return np.concatenate(arrays, axis=dim)

    def to_numpy(self, a):
        return a
