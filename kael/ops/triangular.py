"""``tril`` and ``triu``: keep the lower or upper triangle of the last two dims, zero the rest."""

from __future__ import annotations

from .. import dtype as dt
from ..autograd.function import Function
from ..tensor import B, Tensor, _wrap
from ._register import method

__all__ = ["tril", "triu"]


def _keep(shape, diagonal: int, lower: bool):
    """Bool mask of [rows, cols]: ``col - row <= diagonal`` (lower) or ``>= diagonal`` (upper)."""
    rows, cols = shape[-2], shape[-1]
    r = B.view(B.arange(0, rows, 1, dt.int64), (rows, 1))
    c = B.view(B.arange(0, cols, 1, dt.int64), (1, cols))
    offset = B.binary("sub", c, r)
    return B.binary("le" if lower else "ge", offset, B.full((), diagonal, dt.int64))


class Tril(Function):
    """y = x where col - row <= k else 0;  dx = tril(g, k)"""

    lower = True

    @classmethod
    def forward(cls, ctx, x, diagonal=0):
        ctx.diagonal = diagonal
        return _wrap(_masked(x._data, diagonal, cls.lower))

    @classmethod
    def backward(cls, ctx, g):
        return _wrap(_masked(g._data, ctx.diagonal, cls.lower))


class Triu(Tril):
    """y = x where col - row >= k else 0;  dx = triu(g, k)"""

    lower = False


def _masked(arr, diagonal, lower):
    return B.where(_keep(B.shape(arr), diagonal, lower), arr, B.full((), 0, B.dtype(arr)))


def _check(name, x):
    if x.ndim < 2:
        raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")


def tril(x: Tensor, diagonal: int = 0) -> Tensor:
    """The lower triangle of the last two dims (``diagonal`` > 0 keeps more above it)."""
    _check("tril", x)
    return Tril.apply(x, diagonal=int(diagonal))


def triu(x: Tensor, diagonal: int = 0) -> Tensor:
    """The upper triangle of the last two dims (``diagonal`` > 0 drops more above it)."""
    _check("triu", x)
    return Triu.apply(x, diagonal=int(diagonal))


# Tensor methods of these ops (kael/ops/_register.py)
method(tril)
method(triu)
