"""Ordering along one dim: ``sort``, ``argsort``, ``topk``, and ``flip``.

The kernel is one stable ``argsort`` (``kael.backend.scans``); the values are then a
``gather`` of the input at those indices, so their gradient goes back to where each value came
from. NaN sorts after every number, as in PyTorch."""

from __future__ import annotations

from .. import dtype as dt
from ..autograd.function import Function
from ..backend.scans import argsort as _argsort_kernel
from ..tensor import B, Tensor, _wrap
from ._util import norm_dim, norm_dims
from .gather import gather
from ._register import method

__all__ = ["sort", "argsort", "topk", "flip", "msort"]


class _ValuesIndices(tuple):
    """``(values, indices)`` with attribute access, like ``torch.return_types.sort``."""

    __slots__ = ()
    name = "sort"

    @property
    def values(self):
        return self[0]

    @property
    def indices(self):
        return self[1]

    def __repr__(self):
        return f"kael.return_types.{self.name}(\nvalues={self[0]!r},\nindices={self[1]!r})"


class _TopK(_ValuesIndices):
    __slots__ = ()
    name = "topk"


def _order(x: Tensor, dim: int, descending: bool) -> Tensor:
    if x.dtype is dt.bool_:
        return _wrap(_argsort_kernel(B, B.astype(x._data, dt.int64), dim, descending))
    return _wrap(_argsort_kernel(B, x._data, dim, descending))


def sort(x: Tensor, dim: int = -1, descending: bool = False, stable: bool = False) -> _ValuesIndices:
    """Values sorted along ``dim`` and the indices they came from (ties keep their order)."""
    dim = norm_dim(dim, max(x.ndim, 1))
    if x.ndim == 0:
        return _ValuesIndices((x.clone(), _wrap(B.full((), 0, dt.int64))))
    idx = _order(x, dim, descending)
    return _ValuesIndices((gather(x, dim, idx), idx))


def argsort(x: Tensor, dim: int = -1, descending: bool = False, stable: bool = False) -> Tensor:
    """The indices that sort ``x`` along ``dim``."""
    return sort(x, dim, descending, stable)[1]


def msort(x: Tensor) -> Tensor:
    return sort(x, 0)[0]


def topk(x: Tensor, k: int, dim: int = -1, largest: bool = True, sorted: bool = True) -> _TopK:
    """The ``k`` largest (or smallest) values along ``dim``, in order, and their indices."""
    dim = norm_dim(dim, max(x.ndim, 1))
    size = x.shape[dim] if x.ndim else 1
    if not 0 <= k <= size:
        raise RuntimeError("selected index k out of range")
    if x.ndim == 0:
        return _TopK(sort(x))
    idx = _order(x, dim, largest)
    idx = idx[(slice(None),) * dim + (slice(0, k),)].contiguous()
    return _TopK((gather(x, dim, idx), idx))


class Flip(Function):
    """y = x reversed along dims;  dx = g reversed along the same dims"""

    @staticmethod
    def forward(ctx, x, key=()):
        ctx.key = key
        return _wrap(B.copy(B.getitem(x._data, key)))

    @staticmethod
    def backward(ctx, g):
        return _wrap(B.copy(B.getitem(g._data, ctx.key)))


def flip(x: Tensor, dims) -> Tensor:
    """A copy of ``x`` with the order of elements reversed along each of ``dims``."""
    dims = norm_dims((dims,) if isinstance(dims, int) else tuple(dims), x.ndim)
    key = tuple(slice(None, None, -1) if d in dims else slice(None) for d in range(x.ndim))
    return Flip.apply(x, key=key)


# Tensor methods of these ops (kael/ops/_register.py)
method(sort)
method(argsort)
method(msort)
method(topk)
method(flip, params="*dims", call="_op(self, dims[0] if len(dims) == 1 and not isinstance(dims[0], int) else dims)")
