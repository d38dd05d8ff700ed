"""Reductions and the softmax family, each forward beside its vector-Jacobian product."""

from __future__ import annotations

import math

from .. import dtype as dt
from ..autograd.function import Function
from ..autograd.grad_mode import no_grad as _no_grad
from ..tensor import B, Tensor, _wrap
from ._util import TORCH_NAMES, norm_dim, norm_dims, not_implemented, operands
from .arithmetic import maximum, minimum, where
from .unary import Sqrt, exp
from ._register import method

__all__ = [
    "sum", "mean", "var", "std", "max", "min", "amax", "amin", "argmax", "argmin", "logsumexp",
    "softmax", "log_softmax", "all", "any", "allclose", "norm",
]


def _dims(dim, ndim) -> tuple:
    """``norm_dims`` for reductions: an empty list of dims means every dim, as in PyTorch."""
    if dim is not None and not isinstance(dim, int) and len(dim) == 0:
        dim = None
    return norm_dims(dim, ndim)


def _check_nonempty(name, a, dims, whole):
    """PyTorch's errors for max-like reductions over nothing."""
    shape = a.shape
    if whole:
        if a.numel() == 0:
            raise RuntimeError(
                f"{name}(): Expected reduction dim to be specified for input.numel() == 0. "
                "Specify the reduction dim with the 'dim' argument."
            )
        return
    for d in dims:
        if shape[d] == 0:
            raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")


def _kept_shape(shape, dims):
    return tuple(1 if i in dims else n for i, n in enumerate(shape))


def _unreduce(g: Tensor, shape, dims, keepdim):
    """Give ``g`` (reduced over ``dims``) back the reduced dims as size 1, ready to broadcast."""
    return g if keepdim or not dims else g.reshape(_kept_shape(shape, dims))


class Sum(Function):
    """y = sum(a, dims);  da = expand(g, a.shape)"""

    @staticmethod
    def forward(ctx, a, dims=(), keepdim=False, dtype=None):
        ctx.dims, ctx.keepdim = dims, keepdim
        arr = a._data
        if dtype is not None and B.dtype(arr) is not dtype:
            arr = B.astype(arr, dtype)
        return _wrap(B.sum(arr, dims, keepdim))

    @staticmethod
    def backward(ctx, g):
        ni = ctx.inputs[0]
        g = _unreduce(g, ni.shape, ctx.dims, ctx.keepdim).expand(ni.shape)
        return g if g.dtype is ni.dtype else g.to(ni.dtype)


def sum(a, dim=None, keepdim=False, dtype=None, *, axis=None):
    """Sum over ``dim`` (an int, a tuple of ints, or ``None`` for every dim; ``axis`` is its alias)."""
    dim = dim if axis is None else axis
    dims = _dims(dim, a.ndim)
    if dtype is not None:
        dtype = dt.as_dtype(dtype)
    return Sum.apply(a, dims=dims, keepdim=keepdim, dtype=dtype)


def _count(shape, dims) -> int:
    n = 1
    for d in dims:
        n *= shape[d]
    return n


def mean(a, dim=None, keepdim=False, dtype=None, *, axis=None):
    dim = dim if axis is None else axis
    if dtype is not None:
        a = a.to(dt.as_dtype(dtype))
    if not a.dtype.is_floating_point:
        raise RuntimeError(
            f"mean(): could not infer output dtype. Input dtype must be either a floating point "
            f"or complex dtype. Got: {a.dtype.name}"
        )
    dims = _dims(dim, a.ndim)
    return Mean.apply(a, dims=dims, keepdim=keepdim, n=_count(a.shape, dims))


class Mean(Function):
    """y = sum(a, dims) / n;  da = expand(g, a.shape) / n"""

    @staticmethod
    def forward(ctx, a, dims=(), keepdim=False, n=1):
        ctx.dims, ctx.keepdim, ctx.n = dims, keepdim, n
        arr = a._data
        return _wrap(B.binary("div", B.sum(arr, dims, keepdim), B.full((), n, B.dtype(arr))))

    @staticmethod
    def backward(ctx, g):
        ni = ctx.inputs[0]
        return _unreduce(g, ni.shape, ctx.dims, ctx.keepdim).expand(ni.shape) / ctx.n


class Norm(Function):
    """y = (sum |a|**p)**(1/p) over dims;  da = g * a * |a|**(p-2) / y**(p-1), 0 where y == 0
    (p = 1: g * sign(a); p = inf: g * sign(a) shared among the elements |a| == y)"""

    saved_names = ("self", "result")

    @staticmethod
    def forward(ctx, a, p=2.0, dims=(), keepdim=False):
        ctx.p, ctx.dims, ctx.keepdim = p, dims, keepdim
        with _no_grad():
            m = a.abs()
            if p == math.inf:
                y = amax(m, dims, keepdim) if a.numel() else sum(m, dims, keepdim)
            elif p == 0:  # the number of nonzero elements
                y = sum(m != 0, dims, keepdim).to(a.dtype)
            elif p == 1:
                y = sum(m, dims, keepdim)
            elif p == 2:
                y = sum(m * m, dims, keepdim).sqrt()
            else:
                y = sum(m ** p, dims, keepdim) ** (1.0 / p)
        ctx.save_for_backward(a, y)
        return y

    @staticmethod
    def backward(ctx, g):
        a, y = ctx.saved_tensors
        p = ctx.p
        g, y = (_unreduce(t, a.shape, ctx.dims, ctx.keepdim) for t in (g, y))
        if p == 0:
            return (g * 0.0).expand(a.shape)
        if p == 1:
            return g * a.sign()
        if p == math.inf:
            mask = a.abs() == y
            return where(mask, g * a.sign() / sum(mask, ctx.dims, True), 0.0)
        if p == 2:
            return where(y == 0, 0.0, g * a / y)
        return where(y == 0, 0.0, g * a * a.abs() ** (p - 2) / y ** (p - 1))


def norm(a, p="fro", dim=None, keepdim=False, dtype=None):
    """The vector p-norm over ``dim`` (every element by default); ``"fro"`` is p = 2."""
    if dtype is not None:
        a = a.to(dt.as_dtype(dtype))
    if not a.dtype.is_floating_point:
        raise RuntimeError(
            f"linalg.vector_norm: Expected a floating point or complex tensor as input. Got {TORCH_NAMES[a.dtype]}"
        )
    if p == "fro" or p is None:
        p = 2.0
    if isinstance(p, str) or p == -math.inf:
        raise NotImplementedError(f"norm: p={p!r} is not supported; use a number (inf included) or 'fro'")
    dims = _dims(dim if not isinstance(dim, int) else (dim,), a.ndim)
    return Norm.apply(a, p=float(p), dims=dims, keepdim=keepdim)


class Var(Function):
    """y = sum((a - mean(a))**2, dims) / d;  da = g * 2 * (a - mean(a)) / d

    d is n - 1 (unbiased) or n. The gradient is PyTorch's closed form: the path through the
    mean contributes sum(a - mean) = 0 and is left out (so an inf in ``a`` spoils only its own
    element's gradient, as in PyTorch)."""

    saved_names = ("self",)

    @staticmethod
    def forward(ctx, a, dims=(), keepdim=False, denominator=1, whole=False):
        ctx.dims, ctx.keepdim, ctx.denominator, ctx.whole = dims, keepdim, denominator, whole
        ctx.save_for_backward(a)
        centered = a - mean(a, dims, keepdim=True)
        return sum(centered * centered, dims, keepdim) / denominator

    @staticmethod
    def backward(ctx, g):
        (a,) = ctx.saved_tensors
        g = _unreduce(g, a.shape, ctx.dims, ctx.keepdim)
        m = mean(a, ctx.dims, keepdim=True)
        if not ctx.denominator and ctx.whole:
            # PyTorch's var_backward for no dim (or a 0-d input) with no degrees of freedom:
            # inf * (a - mean) taken as nan where a equals the mean, else inf (even for a nan)
            return where(a == m, g * math.nan, g * math.inf)
        return g * (2.0 / ctx.denominator if ctx.denominator else math.inf) * (a - m)


def var(a, dim=None, unbiased=True, keepdim=False, *, correction=None, axis=None):
    """PyTorch's order of arguments: ``var(dim, unbiased, keepdim)``, and ``var(unbiased)``
    alone (a bool first); ``correction`` (PyTorch's newer spelling) replaces ``unbiased``: the
    sum of squares is divided by n - correction."""
    if type(dim) is bool:  # x.var(False): PyTorch's var(unbiased) overload
        dim, unbiased = None, dim
    dim = dim if axis is None else axis
    if not a.dtype.is_floating_point:
        raise RuntimeError("std and var only support floating point and complex dtypes")
    dims = _dims(dim, a.ndim)
    n = _count(a.shape, dims)
    if correction is None:
        correction = 1 if unbiased else 0
    denominator = n - correction if n > correction else 0  # one element, unbiased: 0 / 0 = nan
    return Var.apply(a, dims=dims, keepdim=keepdim, denominator=denominator, whole=dim is None or a.ndim == 0)


class Std(Sqrt):
    """y = sqrt(var);  dvar = g / (2 * y), and 0 where y == 0 (PyTorch's std_backward)"""

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        return where(y == 0, 0.0, g / (2 * y))


def std(a, dim=None, unbiased=True, keepdim=False, *, correction=None, axis=None):
    """The square root of ``var``, with its arguments."""
    return Std.apply(var(a, dim, unbiased, keepdim, correction=correction, axis=axis))


class Amax(Function):
    """y = max(a, dims);  da = g shared evenly among the elements equal to the max"""

    saved_names = ("self", "result")
    reduce = "amax"

    @classmethod
    def forward(cls, ctx, a, dims=(), keepdim=False, nan_shares=False):
        out = _wrap(getattr(B, cls.reduce)(a._data, dims, keepdim))
        ctx.dims, ctx.keepdim, ctx.nan_shares = dims, keepdim, nan_shares
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx, g):
        a, y = ctx.saved_tensors
        shape = a.shape
        y = _unreduce(y, shape, ctx.dims, ctx.keepdim)
        mask = a == y
        g = _unreduce(g, shape, ctx.dims, ctx.keepdim)
        if ctx.nan_shares:  # max()/min() of everything: a nan result comes from the nan elements
            mask = mask | ((a != a) & (y != y))
            # PyTorch's evenly_distribute_backward is a masked_fill: the other elements get 0
            # even when the gradient is nan or inf
            return where(mask, g / mask.to(g.dtype).sum(ctx.dims, keepdim=True), 0.0)
        mask = mask.to(g.dtype)
        count = mask.sum(ctx.dims, keepdim=True)
        return g * mask / count


class Amin(Amax):
    """y = min(a, dims);  da = g shared evenly among the elements equal to the min"""

    reduce = "amin"


def _amax_like(cls, name, a, dim, keepdim, nan_shares=False):
    dims = _dims(dim, a.ndim)
    _check_nonempty(name, a, dims, dim is None or not isinstance(dim, int) and len(dim) == 0)
    return cls.apply(a, dims=dims, keepdim=keepdim, nan_shares=nan_shares)


def amax(a, dim=None, keepdim=False):
    return _amax_like(Amax, "amax", a, dim, keepdim)


def amin(a, dim=None, keepdim=False):
    return _amax_like(Amin, "amin", a, dim, keepdim)


class Max(Function):
    """values, indices = max(a, dim);  da = g scattered to the index positions"""

    saved_names = ("indices",)
    arg = "argmax"

    @classmethod
    def forward(cls, ctx, a, dim=0, keepdim=False):
        ctx.dim, ctx.keepdim = dim, keepdim
        if not B.shape(a._data):  # a 0-d tensor: a copy and index 0, as PyTorch gives
            idx = _wrap(B.full((), 0, dt.int64))
            ctx.save_for_backward(idx)
            return _wrap(B.copy(a._data)), idx
        idx = getattr(B, cls.arg)(a._data, dim, True)
        values = B.getitem(a._data, _take_key(a.ndim, dim, idx))
        values = _wrap(values if keepdim else B.view(values, tuple(n for i, n in enumerate(B.shape(values)) if i != dim)))
        indices = _wrap(idx if keepdim else B.view(idx, tuple(n for i, n in enumerate(B.shape(idx)) if i != dim)))
        ctx.dim, ctx.keepdim = dim, keepdim
        ctx.save_for_backward(_wrap(idx))
        return values, indices

    @staticmethod
    def backward(ctx, g):
        (idx,) = ctx.saved_tensors
        ni = ctx.inputs[0]
        if not ni.shape:
            return g
        if not ctx.keepdim:
            g = g.unsqueeze(ctx.dim)
        out = _wrap(B.full(ni.shape, 0, g.dtype))
        B.setitem(out._data, _take_key(len(ni.shape), ctx.dim, idx._data), B.copy(g._data))
        return out


class Min(Max):
    """values, indices = min(a, dim);  da = g scattered to the index positions"""

    arg = "argmin"


def _take_key(ndim, dim, idx):
    """An advanced-index key that picks ``idx`` (keepdim indices) along ``dim``."""
    shape = B.shape(idx)
    key = []
    for i in range(ndim):
        if i == dim:
            key.append(idx)
        else:
            view_shape = tuple(shape[i] if j == i else 1 for j in range(ndim))
            key.append(B.view(B.arange(0, shape[i], 1, dt.int64), view_shape))
    return tuple(key)


class _MinMaxResult(tuple):
    """``(values, indices)`` with attribute access, like PyTorch's ``torch.return_types.max``."""

    __slots__ = ()

    @property
    def values(self):
        return self[0]

    @property
    def indices(self):
        return self[1]


def _extreme(name, a, dim, keepdim, whole, along, elementwise):
    if isinstance(dim, Tensor):  # max(a, b): the elementwise maximum, as torch.max does
        return elementwise(a, dim)
    if dim is None:
        return _amax_like(whole, name, a, None, False, nan_shares=True)
    d = norm_dim(dim, a.ndim)
    _check_nonempty(name, a, (d,) if a.ndim else (), False)
    return _MinMaxResult(along.apply(a, dim=d, keepdim=keepdim))


def max(a, dim=None, keepdim=False):
    """``max(a)`` is the largest element; ``max(a, dim)`` returns ``(values, indices)``."""
    return _extreme("max", a, dim, keepdim, Amax, Max, maximum)


def min(a, dim=None, keepdim=False):
    """``min(a)`` is the smallest element; ``min(a, dim)`` returns ``(values, indices)``."""
    return _extreme("min", a, dim, keepdim, Amin, Min, minimum)


def _arg_extreme(name, a, dim, keepdim):
    if a.dtype is dt.bool_:
        raise RuntimeError(f"{name}(): does not support bool input")
    d = None if dim is None else norm_dim(dim, a.ndim)
    if d is None and a.numel() == 0:  # PyTorch raises an IndexError here, a RuntimeError for amax
        raise IndexError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0.")
    _check_nonempty(name, a, () if d is None or not a.ndim else (d,), d is None)
    if not a.ndim:
        return _wrap(B.full((), 0, dt.int64))
    return _wrap(getattr(B, name)(a._data, d, keepdim and d is not None))


def argmax(a, dim=None, keepdim=False):
    return _arg_extreme("argmax", a, dim, keepdim)


def argmin(a, dim=None, keepdim=False):
    return _arg_extreme("argmin", a, dim, keepdim)


class LogSumExp(Function):
    """y = log(sum(exp(a), dims));  da = g * exp(a - y)  (PyTorch's formula; it saves a and y,
    so an in-place change to a before backward raises the version error)"""

    saved_names = ("self", "result")

    @staticmethod
    def forward(ctx, a, dims=(), keepdim=False):
        ctx.dims, ctx.keepdim = dims, keepdim
        if a.numel():
            m = a.amax(dims, keepdim=True)
            m = where(m.abs() == float("inf"), 0.0, m)
        else:  # nothing to shift: the sum of no terms is 0 and its log -inf, as in PyTorch
            m = _wrap(B.full(_kept_shape(a.shape, dims), 0, a.dtype))
        out = (a - m).exp().sum(dims, keepdim=True).log() + m
        if not keepdim and dims:  # a tensor of its own, not a view of the temporary sum
            out = _wrap(out.squeeze(dims)._data)
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx, g):
        a, y = ctx.saved_tensors
        shape = a.shape
        return _unreduce(g, shape, ctx.dims, ctx.keepdim) * (a - _unreduce(y, shape, ctx.dims, ctx.keepdim)).exp()


def logsumexp(a, dim, keepdim=False):
    """log(sum(exp(a), dim)), computed stably around the max."""
    if not a.dtype.is_floating_point:
        a = a.to(dt.get_default_dtype())
    return LogSumExp.apply(a, dims=_dims(dim, a.ndim), keepdim=keepdim)


class Softmax(Function):
    """y = exp(a) / sum(exp(a), dim);  da = y * (g - sum(g * y, dim))"""

    saved_names = ("result",)

    @staticmethod
    def forward(ctx, a, dim=-1):
        x = _wrap(a._data) if a.dtype.is_floating_point else a.to(dt.get_default_dtype())
        shifted = x - x.amax(dim, keepdim=True) if x.numel() else x
        e = exp(shifted)
        out = e / e.sum(dim, keepdim=True)
        ctx.dim = dim
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        return y * (g - (g * y).sum(ctx.dim, keepdim=True))


class LogSoftmax(Function):
    """y = a - logsumexp(a, dim);  da = g - exp(y) * sum(g, dim)"""

    saved_names = ("result",)

    @staticmethod
    def forward(ctx, a, dim=-1):
        x = _wrap(a._data) if a.dtype.is_floating_point else a.to(dt.get_default_dtype())
        shifted = x - x.amax(dim, keepdim=True) if x.numel() else x
        out = shifted - exp(shifted).sum(dim, keepdim=True).log()
        ctx.dim = dim
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        return g - exp(y) * g.sum(ctx.dim, keepdim=True)


def softmax(a, dim):
    if not a.dtype.is_floating_point:
        if a.numel():
            raise not_implemented("softmax_kernel_impl", a.dtype)
        return a.clone()  # nothing to compute: PyTorch keeps the dtype
    return Softmax.apply(a, dim=norm_dim(dim, a.ndim))


def log_softmax(a, dim):
    if not a.dtype.is_floating_point:
        if a.numel():
            raise not_implemented("log_softmax_kernel_impl", a.dtype)
        return a.clone()  # nothing to compute: PyTorch keeps the dtype
    return LogSoftmax.apply(a, dim=norm_dim(dim, a.ndim))


def all(a, dim=None, keepdim=False) -> Tensor:
    """True when every element is nonzero (along ``dim`` when given)."""
    if dim is not None:
        return (_count_nonzero(a, dim, keepdim) == _count(a.shape, _dims(dim, a.ndim)))
    n = B.item(B.sum(B.astype(a._data, dt.bool_), tuple(range(a.ndim)), False))
    return _wrap(B.full((), n == a.numel(), dt.bool_))


def any(a, dim=None, keepdim=False) -> Tensor:
    """True when some element is nonzero (along ``dim`` when given)."""
    if dim is not None:
        return _count_nonzero(a, dim, keepdim) > 0
    n = B.item(B.sum(B.astype(a._data, dt.bool_), tuple(range(a.ndim)), False))
    return _wrap(B.full((), n > 0, dt.bool_))


def _count_nonzero(a, dim, keepdim) -> Tensor:
    """How many elements are nonzero along ``dim`` (int64)."""
    return _wrap(B.sum(B.astype(a._data, dt.bool_), _dims(dim, a.ndim), keepdim))


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False) -> bool:
    """|a - b| <= atol + rtol * |b| elementwise (NaNs equal only with ``equal_nan``)."""
    (a, b), _ = operands(a, b)
    a = a.detach().to(dt.float64)
    b = b.detach().to(dt.float64)
    close = (a - b).abs() <= atol + rtol * b.abs()
    close = close | (a == b)
    if equal_nan:
        close = close | ((a != a) & (b != b))
    return bool(all(close).item())


# Tensor methods of these ops (kael/ops/_register.py)
method(sum)
method(mean)
method(var)
method(std)
method(max)
method(min)
method(amax)
method(amin)
method(argmax)
method(argmin)
method(logsumexp)
method(softmax)
method(log_softmax)
method(all)
method(any)
method(norm)
method(allclose, params="other, rtol=1e-05, atol=1e-08, equal_nan=False", call="_op(self, other, rtol, atol, equal_nan)")
