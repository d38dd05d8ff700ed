"""Constant padding (``F.pad``): pads are given from the last dim backwards, ``(left, right,
top, bottom, ...)``; a negative pad crops."""

from __future__ import annotations

from ..autograd.function import Function
from ..tensor import B, Tensor, _wrap

__all__ = ["pad"]


def _windows(shape, pad):
    """(result shape, the slice of the result that holds input, the slice of input kept)."""
    n = len(pad) // 2
    out_shape, dst, src = list(shape), [slice(None)] * len(shape), [slice(None)] * len(shape)
    for k in range(n):
        d = len(shape) - 1 - k
        lo, hi = pad[2 * k], pad[2 * k + 1]
        size = shape[d] + lo + hi
        if size < 0:
            raise RuntimeError("narrow(): length must be non-negative.")
        out_shape[d] = size
        dst[d] = slice(max(lo, 0), max(lo, 0) + max(shape[d] + min(lo, 0) + min(hi, 0), 0))
        src[d] = slice(max(-lo, 0), max(-lo, 0) + max(shape[d] + min(lo, 0) + min(hi, 0), 0))
    return tuple(out_shape), tuple(dst), tuple(src)


class Pad(Function):
    """y = x placed in a block of ``value`` (cropped where a pad is negative);
    dx = the part of g that covers x (0 where x was cropped)"""

    @staticmethod
    def forward(ctx, x, pad=(), value=0.0):
        shape, ctx.dst, ctx.src = _windows(x.shape, pad)
        out = B.full(shape, value, x.dtype)
        B.setitem(out, ctx.dst, B.getitem(x._data, ctx.src))
        return _wrap(out)

    @staticmethod
    def backward(ctx, g):
        ni = ctx.inputs[0]
        dx = B.full(ni.shape, 0, g.dtype)
        B.setitem(dx, ctx.src, B.getitem(g._data, ctx.dst))
        return _wrap(dx)


def pad(x: Tensor, pad, mode: str = "constant", value=None) -> Tensor:
    """``x`` padded with ``value`` (0 by default): ``pad=(1, 2)`` adds one column on the left of
    the last dim and two on the right."""
    if mode != "constant":
        raise NotImplementedError(f"pad: mode '{mode}' is not supported by kael; only 'constant' is")
    pad = tuple(int(p) for p in pad)
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) > 2 * x.ndim:
        raise RuntimeError(
            "Padding length should be less than or equal to two times the input dimension but got padding "
            f"length {len(pad)} and input of dimension {x.ndim}"
        )
    return Pad.apply(x, pad=pad, value=0 if value is None else value)
