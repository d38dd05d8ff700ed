"""Matrix products: ``matmul`` with vector promotion and batch broadcasting (rml), and ``linear``."""

from __future__ import annotations

import math

from .. import dtype as dt
from ..autograd.function import Function
from ..backend.errors import matmul_error
from ..tensor import B, Tensor, _wrap
from ._util import TORCH_NAMES, promoted, sum_to
from ._register import method, operator

__all__ = ["matmul", "linear", "mm", "bmm"]


def _common(a, b):
    return a.dtype if a.dtype is b.dtype else dt.promote_types(a.dtype, b.dtype)


class Matmul(Function):
    """y = a @ b;  da = g @ b^T;  db = a^T @ g  (vectors promoted as in forward, batch dims
    summed back with sum_to)"""

    saved_names = ("self", "mat2")

    @staticmethod
    def forward(ctx, a, b):
        need = ctx.needs_input_grad
        ctx.save_for_backward(a if need[1] else None, b if need[0] else None)
        dtype = _common(a, b)
        return _wrap(B.matmul(promoted(a, dtype), promoted(b, dtype)))

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        na, nb = ctx.inputs
        need = ctx.needs_input_grad
        a_vec, b_vec = len(na.shape) == 1, len(nb.shape) == 1
        if b_vec:  # before a_vec's: vector @ vector gives a 0-d g, which needs (1,) first
            g = g.unsqueeze(-1)
        if a_vec:
            g = g.unsqueeze(-2)
        ga = gb = None
        if need[0]:
            bm = b.unsqueeze(-1) if b_vec else b
            ga = g @ bm.mT
            ga = sum_to(ga, (1,) + na.shape if a_vec else na.shape).reshape(na.shape).to(na.dtype)
        if need[1]:
            am = a.unsqueeze(0) if a_vec else a
            gb = am.mT @ g
            gb = sum_to(gb, nb.shape + (1,) if b_vec else nb.shape).reshape(nb.shape).to(nb.dtype)
        return ga, gb


def matmul(a, b):
    """numpy's matmul: 1-D operands are promoted to matrices and squeezed back, batch dims broadcast."""
    if not isinstance(a, Tensor) or not isinstance(b, Tensor):
        raise TypeError("matmul(): both arguments must be Tensors")
    if a.ndim == 0 or b.ndim == 0:
        raise matmul_error(a.shape, b.shape)
    if a.dtype is not b.dtype:
        raise _dtype_mismatch(a, b)
    return Matmul.apply(a, b)


_C_NAMES = {"float32": "float", "float64": "double", "int64": "long int", "bool": "bool"}


def _dtype_mismatch(a, b) -> RuntimeError:
    """PyTorch's error for a product of two dtypes: matmul never promotes."""
    ta, tb = TORCH_NAMES[a.dtype], TORCH_NAMES[b.dtype]
    if a.ndim == 1 and b.ndim == 1:
        return RuntimeError(f"dot : expected both vectors to have same dtype, but found {ta} and {tb}")
    if b.ndim == 1:
        return RuntimeError(f"addmv input tensors must have the same dtype, but got {tb}, {ta}, and {tb}")
    return RuntimeError(
        f"expected m1 and m2 to have the same dtype, but got: {_C_NAMES[a.dtype.name]} != {_C_NAMES[b.dtype.name]}"
    )


def mm(a, b):
    if a.ndim != 2 or b.ndim != 2:
        raise RuntimeError(f"mm: expected 2-D tensors, got {a.ndim}-D and {b.ndim}-D")
    return matmul(a, b)


def bmm(a, b):
    if a.ndim != 3 or b.ndim != 3:
        raise RuntimeError(f"bmm: expected 3-D tensors, got {a.ndim}-D and {b.ndim}-D")
    return matmul(a, b)


def _rows(t):
    """``t`` as a matrix [every leading dim, last dim] (a -1 cannot be inferred with 0 columns)."""
    shape = t.shape
    return t.reshape(math.prod(shape[:-1]), shape[-1])


class Linear(Function):
    """y = x @ W^T + b;  dx = g @ W;  dW = g^T @ x (over every leading dim);  db = sum(g)"""

    saved_names = ("input", "weight")

    @staticmethod
    def forward(ctx, x, weight, bias=None):
        need = ctx.needs_input_grad
        ctx.save_for_backward(x if need[1] else None, weight if need[0] else None)
        dtype = _common(x, weight)
        out = B.matmul(promoted(x, dtype), B.permute(promoted(weight, dtype), (1, 0)))
        if bias is not None:
            out = B.binary("add", out, promoted(bias, dtype))
        return _wrap(out)

    @staticmethod
    def backward(ctx, g):
        x, w = ctx.saved_tensors
        need = ctx.needs_input_grad
        nx, nw = ctx.inputs[0], ctx.inputs[1]
        gd = g._data
        dtype = B.dtype(gd)
        arrays = (not need[0] or isinstance(w, Tensor)) and (not need[1] or isinstance(x, Tensor))
        if arrays and len(B.shape(gd)) == 2 and dtype is nx.dtype is nw.dtype:  # a batch of rows: on the arrays
            gx = _wrap(B.matmul(gd, w._data)) if need[0] else None
            gw = _wrap(B.matmul(B.permute(gd, (1, 0)), x._data)) if need[1] else None
            if len(need) == 2:
                return gx, gw
            gb = None
            if need[2]:
                nb = ctx.inputs[2]
                plain = nb.dtype is dtype and nb.shape == B.shape(gd)[1:]
                gb = _wrap(B.sum(gd, (0,), False)) if plain else _bias_grad(g, nb)
            return gx, gw, gb
        gx = (g @ w).to(nx.dtype) if need[0] else None
        gw = None
        if need[1]:
            gw = (_rows(g).mT @ _rows(x)).to(nw.dtype)
        gb = _bias_grad(g, ctx.inputs[2]) if len(need) > 2 and need[2] else None
        return (gx, gw, gb) if len(need) > 2 else (gx, gw)


def _bias_grad(g, nb):
    return sum_to(g, nb.shape).to(nb.dtype)


def linear(x, weight, bias=None):
    """``x @ weight.T + bias`` for ``x`` of shape [..., in] and ``weight`` of shape [out, in]."""
    if weight.ndim != 2:
        raise RuntimeError(f"linear: weight must be 2-D [out, in], got shape {list(weight.shape)}")
    if x.ndim == 0 or x.shape[-1] != weight.shape[1]:
        raise RuntimeError(
            f"linear: input of shape {list(x.shape)} does not match weight of shape {list(weight.shape)} "
            f"({x.shape[-1] if x.ndim else 'scalar'} != {weight.shape[1]})"
        )
    if x.dtype is not weight.dtype or bias is not None and bias.dtype is not weight.dtype:
        other = x.dtype if x.dtype is not weight.dtype else bias.dtype
        raise RuntimeError(
            f"mat1 and mat2 must have the same dtype, but got {TORCH_NAMES.get(other, other.name)} and {TORCH_NAMES.get(weight.dtype, weight.dtype.name)}"
        )
    if bias is None:
        return Linear.apply(x, weight)
    return Linear.apply(x, weight, bias)


# Tensor methods and operators of these ops (kael/ops/_register.py)
operator(matmul, "__matmul__", "__rmatmul__", "matmul")
method(bmm, params="other", call="_op(self, other)")
