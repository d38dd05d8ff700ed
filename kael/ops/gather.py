"""Picking and placing elements by index along one dim: ``gather``, ``scatter``,
``scatter_add``, ``index_select``, and ``masked_fill`` by a bool mask.

``gather(x, dim, idx)[i][j] = x[i][idx[i][j]]`` (for dim 1) is advanced indexing with an
``arange`` grid on every other dim (the key ``_take_key`` builds), so the backends need
nothing new: ``getitem`` reads, ``setitem`` and ``index_add_`` write."""

from __future__ import annotations

from .. import dtype as dt
from ..autograd.function import Function
from ..tensor import B, Tensor, _wrap
from ._util import norm_dim
from .reduction import _take_key
from ._register import method

__all__ = ["gather", "scatter", "scatter_add", "index_select", "masked_fill"]  # embedding: kael.nn.functional


def _check_index(name, x, dim, idx, same_ndim=True):
    if not isinstance(idx, Tensor) or idx.dtype is not dt.int64:
        raise RuntimeError(f"{name}(): Expected dtype int32/int64 for index")
    if same_ndim and idx.ndim != max(x.ndim, 1) and idx.numel():
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    size = x.shape[dim] if x.ndim else 1
    if idx.numel():
        every = tuple(range(idx.ndim))
        lo, hi = B.item(B.amin(idx._data, every, False)), B.item(B.amax(idx._data, every, False))
        bad = lo if lo < 0 else hi if hi >= size else None
        if bad is not None:
            raise RuntimeError(f"index {bad} is out of bounds for dimension {dim} with size {size}")


def _check_fits(x, dim, idx, other="self"):
    for d, (n, m) in enumerate(zip(idx.shape, x.shape)):
        if d != dim and n > m:
            raise RuntimeError(
                f"Size does not match at dimension {d} expected index {list(idx.shape)} to be smaller "
                f"than {other} {list(x.shape)} apart from dimension {dim}"
            )


class Gather(Function):
    """y = x[grid, idx along dim];  dx = zeros like x with g added at those places"""

    @staticmethod
    def forward(ctx, x, dim=0, idx=None):
        ctx.key = _take_key(x.ndim, dim, idx._data)
        return _wrap(B.getitem(x._data, ctx.key))

    @staticmethod
    def backward(ctx, g):
        ni = ctx.inputs[0]
        out = B.full(ni.shape, 0, g.dtype)
        B.index_add_(out, ctx.key, g._data)
        return _wrap(out)


def gather(x: Tensor, dim: int, index: Tensor) -> Tensor:
    """``out[i][j] = x[i][index[i][j]]`` for ``dim=1`` (and likewise for any dim)."""
    dim = norm_dim(dim, max(x.ndim, 1))
    _check_index("gather", x, dim, index)
    _check_fits(x, dim, index)
    if x.ndim == 0:
        return Gather.apply(x.reshape(1), dim=0, idx=index.reshape(-1)).reshape(index.shape)
    return Gather.apply(x, dim=dim, idx=index)


class IndexSelect(Gather):
    """y = x.index_select(dim, idx);  dx = zeros like x with g added at the selected slices"""

    @staticmethod
    def forward(ctx, x, dim=0, idx=None):
        ctx.key = (slice(None),) * dim + (idx._data,)
        return _wrap(B.getitem(x._data, ctx.key))


def index_select(x: Tensor, dim: int, index: Tensor) -> Tensor:
    """The slices of ``x`` at positions ``index`` (a vector) along ``dim``."""
    if index.ndim > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    dim = norm_dim(dim, max(x.ndim, 1))
    _check_index("index_select", x, dim, index, same_ndim=False)
    if x.ndim == 0:
        return IndexSelect.apply(x.reshape(1), dim=0, idx=index.reshape(-1)).reshape(index.shape)
    return IndexSelect.apply(x, dim=dim, idx=index.reshape(-1))


class Scatter(Function):
    """y = x with src written at idx along dim (add=True: added);
    dx = g, zeroed at the written places unless added;  dsrc = g gathered at idx"""

    @staticmethod
    def forward(ctx, x, src, dim=0, idx=None, add=False):
        ctx.key, ctx.add = _take_key(x.ndim, dim, idx._data), add
        ctx.src_shape, ctx.part = src.shape, tuple(slice(0, n) for n in idx.shape)
        out = B.copy(x._data)
        part = B.getitem(src._data, ctx.part)
        (B.index_add_ if add else B.setitem)(out, ctx.key, part)
        return _wrap(out)

    @staticmethod
    def backward(ctx, g):
        dx = dsrc = None
        if ctx.needs_input_grad[0]:
            dx = g
            if not ctx.add:
                dx = _wrap(B.copy(g._data))
                B.setitem(dx._data, ctx.key, B.full((), 0, g.dtype))
        if ctx.needs_input_grad[1]:
            dsrc = _wrap(B.full(ctx.src_shape, 0, g.dtype))
            B.setitem(dsrc._data, ctx.part, B.getitem(g._data, ctx.key))
        return dx, dsrc


def _scatter(name, x, dim, index, src, add):
    dim = norm_dim(dim, max(x.ndim, 1))
    _check_index(name, x, dim, index)
    _check_fits(x, dim, index)
    if not isinstance(src, Tensor):
        src = _wrap(B.full(index.shape, src, x.dtype))
    elif src.dtype is not x.dtype:
        raise RuntimeError(f"{name}(): Expected self.dtype to be equal to src.dtype")
    else:
        _check_fits(src, -1, index, "src")
    return Scatter.apply(x, src, dim=dim, idx=index, add=add)


def scatter(x: Tensor, dim: int, index: Tensor, src=None, value=None) -> Tensor:
    """A copy of ``x`` with ``src[i][j]`` (or ``value``) written at ``x[i][index[i][j]]`` (dim 1)."""
    return _scatter("scatter", x, dim, index, value if src is None else src, add=False)


def scatter_add(x: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    """A copy of ``x`` with ``src[i][j]`` added at ``x[i][index[i][j]]`` (dim 1); repeats add up."""
    return _scatter("scatter_add", x, dim, index, src, add=True)


class MaskedFill(Function):
    """y = value where mask else x;  dx = g where not mask;  dvalue = sum(g where mask)"""

    @staticmethod
    def forward(ctx, x, value, mask=None):
        ctx.mask = mask
        v = value._data if B.dtype(value._data) is x.dtype else B.astype(value._data, x.dtype)
        return _wrap(B.where(mask, v, x._data))

    @staticmethod
    def backward(ctx, g):
        zero = B.full((), 0, g.dtype)
        dx = _wrap(B.where(ctx.mask, zero, g._data))
        dv = None
        if ctx.needs_input_grad[1]:
            dv = _wrap(B.sum(B.where(ctx.mask, g._data, zero), (), False))
        return dx, dv


def masked_fill(x: Tensor, mask: Tensor, value) -> Tensor:
    """``x`` with ``value`` (a number or a 0-d tensor) wherever the bool ``mask`` (broadcast to
    ``x``) is True."""
    if not isinstance(mask, Tensor) or mask.dtype is not dt.bool_:
        name = mask.dtype.name if isinstance(mask, Tensor) else type(mask).__name__
        raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with dtype {name}")
    if isinstance(value, Tensor):
        if value.ndim:
            raise RuntimeError(
                f"masked_fill_ only supports a 0-dimensional value tensor, but got tensor with {value.ndim} dimension(s)."
            )
    else:
        value = _wrap(B.full((), value, x.dtype))
    mask_arr = B.expand(mask._data, x.shape)
    return MaskedFill.apply(x, value, mask=mask_arr)



class Embedding(Function):
    """y = weight[idx] (one row per index);  dweight = g's rows added at idx, none at padding_idx"""

    @staticmethod
    def forward(ctx, weight, idx=None, padding_idx=None):
        ctx.idx, ctx.padding_idx = idx._data, padding_idx
        return _wrap(B.getitem(weight._data, (ctx.idx,)))

    @staticmethod
    def backward(ctx, g):
        ni = ctx.inputs[0]
        out = B.full(ni.shape, 0, g.dtype)
        B.index_add_(out, (ctx.idx,), g._data)
        if ctx.padding_idx is not None:
            B.setitem(out, (ctx.padding_idx,), B.full((), 0, g.dtype))
        return _wrap(out)


def embedding(input: Tensor, weight: Tensor, padding_idx=None) -> Tensor:
    """The rows of ``weight`` [num_embeddings, dim] at the int64 indices ``input`` (any shape):
    a tensor of shape ``input.shape + [dim]``. ``padding_idx``'s row gets no gradient."""
    if not isinstance(input, Tensor) or input.dtype is not dt.int64:
        got = input.type() if isinstance(input, Tensor) else type(input).__name__
        raise RuntimeError(
            "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; "
            f"but got {got} instead (while checking arguments for embedding)"
        )
    n = weight.shape[0]
    if input.numel():
        every = tuple(range(input.ndim))
        lo, hi = B.item(B.amin(input._data, every, False)), B.item(B.amax(input._data, every, False))
        if lo < 0 or hi >= n:
            raise IndexError("index out of range in self")
    if padding_idx is not None and padding_idx < 0:
        padding_idx += n
    return Embedding.apply(weight, idx=input, padding_idx=padding_idx)


# Tensor methods of these ops (kael/ops/_register.py)
method(gather)
method(scatter)
method(scatter_add)
method(index_select)
method(masked_fill)
method(scatter, "scatter_", call="self.copy_(_op(self.detach(), dim, index, src, value))")
method(scatter_add, "scatter_add_", call="self.copy_(_op(self.detach(), dim, index, src))")
