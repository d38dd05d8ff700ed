"""Running and whole products and sums along a dim: ``cumsum``, ``cumprod``, ``prod``.

The kernels (``kael.backend.scans.cumulative``) accumulate in float64, as PyTorch's CPU
kernels do. The gradients avoid dividing by the input, so zeros in it are fine: ``prod``'s is
the product of every other element, the running product before each element times the one
after it."""

from __future__ import annotations

from .. import dtype as dt
from ..autograd.function import Function
from ..backend.scans import cumulative
from ..tensor import B, Tensor, _wrap
from ._util import norm_dim
from .shape import cat
from .sort import flip
from ._register import method

__all__ = ["cumsum", "cumprod", "prod"]


def _result_dtype(x: Tensor, dtype):
    if dtype is not None:
        return dt.as_dtype(dtype)
    return x.dtype if x.dtype.category != dt.BOOL else dt.int64


class Cumsum(Function):
    """y_i = sum_{j <= i} x_j;  dx_i = sum_{j >= i} g_j (a running sum from the end)"""

    @staticmethod
    def forward(ctx, x, dim=0, dtype=None):
        ctx.dim = dim
        return _wrap(cumulative(B, "sum", x._data, dim, dtype))

    @staticmethod
    def backward(ctx, g):
        ni = ctx.inputs[0]
        d = ctx.dim
        out = flip(_wrap(cumulative(B, "sum", flip(g, d)._data, d, g.dtype)), d)
        return out if out.dtype is ni.dtype else out.to(ni.dtype)


def cumsum(x: Tensor, dim: int, dtype=None) -> Tensor:
    """The running sum along ``dim`` (bool and int64 give int64)."""
    dim = norm_dim(dim, max(x.ndim, 1))
    return Cumsum.apply(x, dim=dim, dtype=_result_dtype(x, dtype))


def _exclusive(x: Tensor, dim: int) -> Tensor:
    """The product of the elements before each one along ``dim`` (1 for the first)."""
    run = cumulative(B, "prod", x._data, dim, x.dtype)
    n = x.shape[dim]
    shifted = B.full(x.shape, 1, x.dtype)
    if n > 1:
        lead = (slice(None),) * dim
        B.setitem(shifted, lead + (slice(1, n),), B.getitem(run, lead + (slice(0, n - 1),)))
    return _wrap(shifted)


def _others_product(x: Tensor, dim: int) -> Tensor:
    """For each element, the product of every other element along ``dim``."""
    before = _exclusive(x, dim)
    after = flip(_exclusive(flip(x, dim), dim), dim)
    return before * after


class Cumprod(Function):
    """y_i = prod_{j <= i} x_j;  dx_k = sum_{i >= k} g_i * prod_{j <= i, j != k} x_j"""

    @staticmethod
    def forward(ctx, x, dim=0, dtype=None):
        ctx.dim = dim
        ctx.save_for_backward(x)
        return _wrap(cumulative(B, "prod", x._data, dim, dtype))

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        d, n = ctx.dim, x.shape[ctx.dim]
        lead = (slice(None),) * d
        parts = []
        for k in range(n):  # O(n^2), exact with zeros: the product with x_k left out
            ones = x.new_ones(())
            rest = x.clone()
            rest[lead + (k,)] = ones
            run = _wrap(cumulative(B, "prod", rest._data, d, x.dtype))
            parts.append((g * run)[lead + (slice(k, n),)].sum(d, keepdim=True))
        return cat(parts, d) if parts else g


def cumprod(x: Tensor, dim: int, dtype=None) -> Tensor:
    """The running product along ``dim``."""
    dim = norm_dim(dim, max(x.ndim, 1))
    return Cumprod.apply(x, dim=dim, dtype=_result_dtype(x, dtype))


class Prod(Function):
    """y = prod(x, dim);  dx = g * (the product of every other element)"""

    saved_names = ("self",)

    @staticmethod
    def forward(ctx, x, dim=0, keepdim=False, dtype=None):
        ctx.dim, ctx.keepdim = dim, keepdim
        ctx.save_for_backward(x)
        n = x.shape[dim]
        if n == 0:
            shape = tuple(1 if i == dim else s for i, s in enumerate(x.shape))
            out = B.full(shape, 1, dtype)
        else:
            run = cumulative(B, "prod", x._data, dim, dtype)
            out = B.getitem(run, (slice(None),) * dim + (slice(n - 1, n),))
        shape = B.shape(out)
        return _wrap(B.copy(out) if keepdim else B.view(B.copy(out), shape[:dim] + shape[dim + 1:]))

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        if not ctx.keepdim:
            g = g.unsqueeze(ctx.dim)
        return g * _others_product(x, ctx.dim)


def prod(x: Tensor, dim=None, keepdim: bool = False, dtype=None) -> Tensor:
    """The product over ``dim`` (``None``: every element; bool and int64 give int64)."""
    dtype = _result_dtype(x, dtype)
    if dim is None:
        return Prod.apply(x.reshape(-1), dim=0, keepdim=False, dtype=dtype)
    dim = norm_dim(dim, max(x.ndim, 1))
    if x.ndim == 0:
        return Prod.apply(x.reshape(1), dim=0, keepdim=False, dtype=dtype)
    return Prod.apply(x, dim=dim, keepdim=keepdim, dtype=dtype)


# Tensor methods of these ops (kael/ops/_register.py)
method(cumsum)
method(cumprod)
method(prod)
