"""``layer_norm`` as one node (PyTorch's ``NativeLayerNormBackward``), with the closed-form
gradient over the normalised dims (n elements each):

    xhat = (x - mean) * rstd,  rstd = 1 / sqrt(var + eps)   (biased variance)
    y = xhat * w + b
    dx = rstd * (dxhat - mean(dxhat) - xhat * mean(dxhat * xhat)),  dxhat = g * w
    dw = sum of g * xhat over the other dims,  db = sum of g over the other dims"""

from __future__ import annotations

from ..autograd.function import Function
from ..tensor import Tensor
from ._util import sum_to

__all__ = ["layer_norm"]


class NativeLayerNorm(Function):
    """y = (x - mean) / sqrt(var + eps) * w + b over the last dims; see the module docstring"""

    @staticmethod
    def forward(ctx, x, weight=None, bias=None, dims=(), eps=1e-5):
        mean = x.mean(dims, keepdim=True)
        centered = x - mean
        rstd = ((centered * centered).mean(dims, keepdim=True) + eps).rsqrt()
        xhat = centered * rstd
        ctx.dims = dims
        ctx.save_for_backward(xhat, rstd, *(() if weight is None else (weight,)))
        out = xhat if weight is None else xhat * weight
        return out if bias is None else out + bias

    @staticmethod
    def backward(ctx, g):
        xhat, rstd, *weight = ctx.saved_tensors
        weight = weight[0] if weight else None
        dims = ctx.dims
        dxhat = g if weight is None else g * weight
        dx = rstd * (dxhat - dxhat.mean(dims, keepdim=True) - xhat * (dxhat * xhat).mean(dims, keepdim=True))
        dw = sum_to(g * xhat, weight.shape) if weight is not None and ctx.needs_input_grad[1] else None
        db = sum_to(g, ctx.inputs[2].shape) if len(ctx.inputs) > 2 and ctx.needs_input_grad[2] else None
        return (dx, dw, db)[:len(ctx.inputs)]


def layer_norm(input: Tensor, normalized_shape, weight=None, bias=None, eps=1e-5) -> Tensor:
    """(x - mean) / sqrt(var + eps) over the last ``len(normalized_shape)`` dims (biased
    variance), then ``* weight + bias``."""
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    if tuple(input.shape[input.ndim - len(shape):]) != shape or len(shape) > input.ndim:
        raise RuntimeError(
            f"Given normalized_shape={list(shape)}, expected input with shape [*, {', '.join(map(str, shape))}], "
            f"but got input of size{list(input.shape)}"
        )
    dims = tuple(range(input.ndim - len(shape), input.ndim))
    if bias is not None and weight is None:
        weight = input.new_ones(shape)
    args = (input,) if weight is None else (input, weight) if bias is None else (input, weight, bias)
    return NativeLayerNorm.apply(*args, dims=dims, eps=eps)
