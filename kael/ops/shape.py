"""Shape ops. Views share storage with their input; cat, stack and clone copy."""

from __future__ import annotations

from .. import dtype as dt
from ..autograd.function import Function
from ..backend.errors import fmt_shape
from ..tensor import B, Tensor, _view_op, _wrap
from ._util import norm_dim, norm_dims, reduce_grad, sum_to
from ._register import method

__all__ = [
    "view", "reshape", "permute", "transpose", "unsqueeze", "squeeze", "flatten", "expand",
    "broadcast_to", "clone", "cat", "concat", "stack", "contiguous", "t",
]


def _shape_arg(shape) -> tuple:
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    return tuple(int(s) for s in shape)


def _infer(shape, numel, src_shape) -> tuple:
    """Resolve one ``-1`` in ``shape`` and check the element count."""
    if shape.count(-1) > 1:
        raise RuntimeError("only one dimension can be inferred")
    known = 1
    for s in shape:
        if s != -1:
            if s < 0:
                raise RuntimeError(f"invalid shape dimension {s}")
            known *= s
    if -1 in shape:
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '{fmt_shape(shape)}' is invalid for input of size {numel}")
        shape = tuple(numel // known if s == -1 else s for s in shape)
    elif known != numel:
        raise RuntimeError(f"shape '{fmt_shape(shape)}' is invalid for input of size {numel}")
    return shape


class View(Function):
    """y = a viewed as shape;  da = g.reshape(a.shape)"""

    @staticmethod
    def forward(ctx, a, shape=(), copy=False):
        arr = B.view(a._data, shape)
        if arr is None:
            if not copy:
                raise RuntimeError(
                    f"view size is not compatible with input tensor's size and stride (at least one "
                    f"dimension spans across two contiguous subspaces); shape {fmt_shape(a.shape)} with "
                    f"strides {list(a.stride())} cannot be viewed as {fmt_shape(shape)}. Use .reshape(...) instead."
                )
            return _wrap(B.view(B.copy(a._data), shape))
        return _view_op(arr, a)

    @staticmethod
    def backward(ctx, g):
        return g.reshape(ctx.inputs[0].shape)


def view(a, *shape):
    shape = _infer(_shape_arg(shape), a.numel(), a.shape)
    return View.apply(a, shape=shape)


def reshape(a, *shape):
    """Like ``view``, but copies when the strides cannot express the new shape."""
    shape = _infer(_shape_arg(shape), a.numel(), a.shape)
    if shape == a.shape:
        return View.apply(a, shape=shape)
    return View.apply(a, shape=shape, copy=True)


class Permute(Function):
    """y = a with dims reordered;  da = g with the inverse order"""

    @staticmethod
    def forward(ctx, a, dims=()):
        ctx.dims = dims
        return _view_op(B.permute(a._data, dims), a)

    @staticmethod
    def backward(ctx, g):
        inverse = [0] * len(ctx.dims)
        for i, d in enumerate(ctx.dims):
            inverse[d] = i
        return g.permute(*inverse)


class T(Permute):
    """y = a.t() (a matrix transposed; a vector or a number as it is);  da = g.t()"""


def t(a):
    if a.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {a.ndim}D")
    return T.apply(a, dims=(1, 0) if a.ndim == 2 else tuple(range(a.ndim)))  # a new view, even for <= 1 dim


def permute(a, *dims):
    dims = _shape_arg(dims) if dims else ()
    n = a.ndim
    if len(dims) != n:
        raise RuntimeError(
            f"permute: the tensor has {n} dims but {len(dims)} dims were given ({list(dims)})"
        )
    dims = tuple(norm_dim(d, n) for d in dims)
    if len(set(dims)) != n:
        raise RuntimeError(f"permute(): duplicate dims are not allowed, got {list(dims)}")
    return Permute.apply(a, dims=dims)


def transpose(a, dim0, dim1):
    n = a.ndim
    if n == 0:
        norm_dim(dim0, 0), norm_dim(dim1, 0)
        return View.apply(a, shape=())
    d0, d1 = norm_dim(dim0, n), norm_dim(dim1, n)
    dims = list(range(n))
    dims[d0], dims[d1] = dims[d1], dims[d0]
    return Permute.apply(a, dims=tuple(dims))


class Unsqueeze(View):
    """y = a with a size-1 dim inserted;  da = g viewed back"""


class Squeeze(View):
    """y = a without its size-1 dims;  da = g viewed back"""


def unsqueeze(a, dim):
    n = a.ndim + 1
    d = norm_dim(dim, n)
    shape = list(a.shape)
    shape.insert(d, 1)
    return Unsqueeze.apply(a, shape=tuple(shape), copy=True)


def squeeze(a, dim=None):
    shape = a.shape
    if dim is None:
        new = tuple(s for s in shape if s != 1)
    else:
        dims = norm_dims(dim, a.ndim)
        new = tuple(s for i, s in enumerate(shape) if not (i in dims and s == 1))
    return Squeeze.apply(a, shape=new, copy=True)


def flatten(a, start_dim=0, end_dim=-1):
    n = a.ndim
    if n == 0:
        return View.apply(a, shape=(1,), copy=True)
    s, e = norm_dim(start_dim, n), norm_dim(end_dim, n)
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if s == e:
        return a  # nothing to merge: PyTorch returns the tensor itself
    shape = a.shape
    mid = 1
    for x in shape[s : e + 1]:
        mid *= x
    return reshape(a, shape[:s] + (mid,) + shape[e + 1 :])


class Expand(Function):
    """y = a broadcast to shape;  da = sum_to(g, a.shape)"""

    @staticmethod
    def forward(ctx, a, shape=()):
        return _view_op(B.expand(a._data, shape), a)

    @staticmethod
    def backward(ctx, g):
        return sum_to(g, ctx.inputs[0].shape)


def expand(a, *shape):
    shape = _shape_arg(shape)
    src = a.shape
    if len(shape) < len(src):
        raise RuntimeError(
            f"expand: the number of sizes provided ({len(shape)}) must be greater or equal to the "
            f"number of dimensions in the tensor ({len(src)})"
        )
    lead = len(shape) - len(src)
    for i in range(lead):
        if shape[i] == -1:
            raise RuntimeError(
                f"The expanded size of the tensor (-1) isn't allowed in a leading, non-existing dimension {i}"
            )
    shape = tuple(src[i - lead] if s == -1 and i >= lead else s for i, s in enumerate(shape))
    if shape == src:
        return a if not a.requires_grad else Expand.apply(a, shape=shape)
    return Expand.apply(a, shape=shape)


broadcast_to = expand


class Clone(Function):
    """y = copy of a;  da = g"""

    @staticmethod
    def forward(ctx, a):
        return _wrap(B.copy(a._data))

    @staticmethod
    def backward(ctx, g):
        return g


def clone(a):
    return Clone.apply(a)


def contiguous(a):
    return a if a.is_contiguous() else Clone.apply(a)


class Cat(Function):
    """y = cat(xs, dim);  dx_i = the slice of g that x_i became"""

    @staticmethod
    def forward(ctx, *tensors, dim=0):
        ctx.dim = dim
        dtype = tensors[0].dtype
        for t in tensors[1:]:
            if t.dtype is not dtype:
                dtype = dt.promote_types(dtype, t.dtype)
        arrays = [t._data if t.dtype is dtype else B.astype(t._data, dtype) for t in tensors]
        return _wrap(B.concat(arrays, dim))

    @staticmethod
    def backward(ctx, g):
        grads = []
        start = 0
        dim = ctx.dim
        for ni, need in zip(ctx.inputs, ctx.needs_input_grad):
            size = ni.shape[dim]
            if need:
                key = (slice(None),) * dim + (slice(start, start + size),)
                grads.append(reduce_grad(g[key], ni))
            else:
                grads.append(None)
            start += size
        return tuple(grads)


def cat(tensors, dim=0):
    """Join tensors along an existing dim; every other dim must match."""
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError("cat(): expected a non-empty list of Tensors")
    for t in tensors:
        if not isinstance(t, Tensor):
            raise TypeError(f"cat(): expected a sequence of Tensors, got {type(t).__name__}")
    for i, t in enumerate(tensors):
        if t.ndim == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
    first = tensors[0]
    d = norm_dim(dim, first.ndim)
    for i, t in enumerate(tensors[1:], 1):
        if t.ndim != first.ndim or any(
            a != b for j, (a, b) in enumerate(zip(t.shape, first.shape)) if j != d
        ):
            raise RuntimeError(
                f"Sizes of tensors must match except in dimension {d}. Expected shape "
                f"{fmt_shape(first.shape)} but got {fmt_shape(t.shape)} for tensor number {i} in the list."
            )
    return Cat.apply(*tensors, dim=d)


concat = cat


def stack(tensors, dim=0):
    """Join tensors of one shape along a new dim."""
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    shape = tensors[0].shape
    for i, t in enumerate(tensors):
        if t.shape != shape:
            raise RuntimeError(
                f"stack expects each tensor to be equal size, but got {fmt_shape(shape)} at entry 0 "
                f"and {fmt_shape(t.shape)} at entry {i}"
            )
    d = norm_dim(dim, len(shape) + 1)
    return cat([unsqueeze(t, d) for t in tensors], d)


# Tensor methods of these ops (kael/ops/_register.py)
method(view)
method(reshape)
method(transpose)
method(permute)
method(t)
method(unsqueeze)
method(squeeze)
method(flatten)
method(expand)
method(clone)
method(view, "view_as", params="other", call="_op(self, other.shape)")
method(reshape, "reshape_as", params="other", call="_op(self, other.shape)")
method(expand, "expand_as", params="other", call="_op(self, other.shape)")
method(expand, "broadcast_to", params="shape", call="_op(self, shape)")
