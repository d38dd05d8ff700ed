"""Losses. ``cross_entropy`` is ``log_softmax`` then ``nll_loss``, as in PyTorch."""

from __future__ import annotations

import warnings

from .. import dtype as dt
from ..autograd.function import Function
from ..backend.errors import fmt_shape
from ..tensor import B, Tensor, _wrap
from .reduction import log_softmax
from ._util import TORCH_NAMES, reduce_grad
from .arithmetic import minimum
from .unary import exp, log, sigmoid

__all__ = ["mse_loss", "nll_loss", "cross_entropy", "binary_cross_entropy_with_logits", "binary_cross_entropy"]

_REDUCTIONS = ("mean", "sum", "none")


def _reduce(loss: Tensor, reduction: str) -> Tensor:
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    if reduction == "none":
        return loss
    raise ValueError(f"{reduction} is not a valid value for reduction; choose one of {', '.join(_REDUCTIONS)}")


def mse_loss(input, target, reduction="mean"):
    """mean((input - target)**2); shapes that differ broadcast, with PyTorch's warning."""
    if input.shape != target.shape:
        warnings.warn(
            f"Using a target size ({fmt_shape(target.shape)}) that is different to the input size "
            f"({fmt_shape(input.shape)}). This will likely lead to incorrect results due to broadcasting. "
            "Please ensure they have the same size.",
            stacklevel=2,
        )
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return MseLoss.apply(input, target, reduction=reduction)


def _unreduce(g: Tensor, shape, reduction: str) -> Tensor:
    """The gradient of a reduced loss spread back over the elementwise loss of ``shape``."""
    if reduction == "none":
        return g
    n = 1
    for s in shape:
        n *= s
    return g.expand(shape) / n if reduction == "mean" else g.expand(shape)


class MseLoss(Function):
    """y = reduce((a - t)**2);  da = g * 2 * (a - t) (/ n for the mean);  dt = -da"""

    saved_names = ("self", "target")

    @staticmethod
    def forward(ctx, a, t, reduction="mean"):
        ctx.save_for_backward(a, t)
        ctx.reduction = reduction
        diff = a - t
        ctx.shape = diff.shape
        return _reduce(diff * diff, reduction)

    @staticmethod
    def backward(ctx, g):
        a, t = ctx.saved_tensors
        na, nt = ctx.inputs
        ga = _unreduce(g, ctx.shape, ctx.reduction) * 2 * (a - t)
        need = ctx.needs_input_grad
        return (reduce_grad(ga, na) if need[0] else None, reduce_grad(-ga, nt) if need[1] else None)


class NllLoss(Function):
    """y = -sum_i w[t_i] * logp[i, t_i] / sum_i w[t_i];  dlogp[i, t_i] = -g * w[t_i] / sum_i w[t_i]"""

    saved_names = ("target",)

    @staticmethod
    def forward(ctx, logp, target, reduction="mean", ignore_index=-100):
        n = B.shape(logp._data)[0]
        targets = B.flat(target._data)
        c = B.shape(logp._data)[1]
        for i, t in enumerate(targets):
            if t != ignore_index and not 0 <= t < c:
                raise IndexError(f"Target {t} is out of bounds for {c} classes (sample {i})")
        rows = [i for i, t in enumerate(targets) if t != ignore_index]
        cols = [targets[i] for i in rows]
        picked = B.getitem(logp._data, (B.from_flat(rows, (len(rows),), dt.int64), B.from_flat(cols, (len(cols),), dt.int64)))
        ctx.rows, ctx.cols, ctx.reduction, ctx.n = rows, cols, reduction, n
        if reduction == "none":
            out = B.full((n,), 0, logp.dtype)
            B.setitem(out, (B.from_flat(rows, (len(rows),), dt.int64),), B.unary("neg", picked))
            return _wrap(out)
        total = B.sum(B.unary("neg", picked), (0,), False)
        if reduction == "mean":  # 0 / 0 = nan when every target is ignored, as in PyTorch
            total = B.binary("div", total, B.full((), float(len(rows)), logp.dtype))
        return _wrap(total)

    @staticmethod
    def backward(ctx, g):
        ni = ctx.inputs[0]
        out = _wrap(B.full(ni.shape, 0, g.dtype))
        rows = B.from_flat(ctx.rows, (len(ctx.rows),), dt.int64)
        cols = B.from_flat(ctx.cols, (len(ctx.cols),), dt.int64)
        if ctx.reduction == "none":
            vals = B.unary("neg", B.getitem(g._data, (rows,)))
        else:
            scale = -g.item() / (len(ctx.rows) if ctx.reduction == "mean" else 1) if ctx.rows else 0.0
            vals = B.full((len(ctx.rows),), scale, g.dtype)
        B.setitem(out._data, (rows, cols), vals)
        return out, None, None, None


def nll_loss(input, target, reduction="mean", ignore_index=-100):
    """Negative log-likelihood of class indices ``target`` [N] under log-probabilities ``input`` [N, C]."""
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction; choose one of {', '.join(_REDUCTIONS)}")
    if not isinstance(target, Tensor) or target.dtype is not dt.int64:
        raise RuntimeError(f"nll_loss: target must be an int64 tensor of class indices, got {getattr(target, 'dtype', type(target).__name__)}")
    squeeze = input.ndim == 1
    if squeeze:
        input, target = input.unsqueeze(0), target.reshape(1)
    if input.ndim != 2 or target.ndim != 1 or target.shape[0] != input.shape[0]:
        raise RuntimeError(
            f"nll_loss: expected input [N, C] and target [N], got input {fmt_shape(input.shape)} and target {fmt_shape(target.shape)}"
        )
    out = NllLoss.apply(input, target, reduction, ignore_index)
    return out.squeeze(0) if squeeze and reduction == "none" else out


def cross_entropy(input, target, reduction="mean", ignore_index=-100):
    """``nll_loss(log_softmax(input, 1), target)``; a float ``target`` of input's shape holds class
    probabilities instead of indices."""
    dim = 0 if input.ndim == 1 else 1
    logp = log_softmax(input, dim)
    if isinstance(target, Tensor) and target.dtype.is_floating_point:
        if target.shape != input.shape:
            raise RuntimeError(f"cross_entropy: probability target shape {fmt_shape(target.shape)} must match input shape {fmt_shape(input.shape)}")
        return _reduce(-(target * logp).sum(dim), reduction)
    return nll_loss(logp, target, reduction, ignore_index)


def _log_sigmoid(x: Tensor) -> Tensor:
    """log(sigmoid(x)) = min(x, 0) - log1p(exp(-|x|)), finite for every finite x."""
    return minimum(x, 0.0) - _wrap(B.unary("log1p", exp(-x.abs())._data))


class BinaryCrossEntropyWithLogits(Function):
    """y = reduce((1 - t) * x - log_sigmoid(x));  dx = g * (sigmoid(x) - t);  dt = -g * x
    (g spread over the elements, / n for the mean)

    PyTorch's formula, in the target's dtype (PyTorch computes it in place on ``1 - target``)."""

    saved_names = ("self", "target")

    @staticmethod
    def forward(ctx, x, t, reduction="mean"):
        ctx.save_for_backward(x, t)
        ctx.reduction = reduction
        return _reduce(((1 - t) * x - _log_sigmoid(x)).to(t.dtype), reduction)

    @staticmethod
    def backward(ctx, g):
        x, t = ctx.saved_tensors
        nx, nt = ctx.inputs
        g = _unreduce(g, x.shape, ctx.reduction)
        need = ctx.needs_input_grad
        return (
            (g * (sigmoid(x) - t)).to(nx.dtype) if need[0] else None,
            (-g * x).to(nt.dtype) if need[1] else None,
        )


def binary_cross_entropy_with_logits(input, target, reduction="mean"):
    """Binary cross-entropy of ``sigmoid(input)`` against ``target``, computed stably from logits."""
    if input.shape != target.shape:
        raise ValueError(f"Target size ({fmt_shape(target.shape)}) must be the same as input size ({fmt_shape(input.shape)})")
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return BinaryCrossEntropyWithLogits.apply(input, target, reduction=reduction)


class BinaryCrossEntropy(Function):
    """y = -(t * max(log(p), -100) + (1 - t) * max(log(1 - p), -100));
    dp = g * (p - t) / max(p * (1 - p), 1e-12);  dt = g * (log(1 - p) - log(p))

    PyTorch clamps the logs at -100, so p = 0 or 1 gives a finite loss and gradient."""

    saved_names = ("self", "target")

    @staticmethod
    def forward(ctx, p, t):
        ctx.save_for_backward(p, t)
        return -(t * log(p).clamp(min=-100.0) + (1 - t) * log(1 - p).clamp(min=-100.0))

    @staticmethod
    def backward(ctx, g):
        p, t = ctx.saved_tensors
        need = ctx.needs_input_grad
        gp = g * (p - t) / (p * (1 - p)).clamp(min=1e-12) if need[0] else None
        gt = g * (log(1 - p) - log(p)) if need[1] else None
        return gp, gt


def binary_cross_entropy(input, target, reduction="mean"):
    """-(t log p + (1 - t) log(1 - p)) for probabilities ``input``, each log clamped at -100."""
    if input.shape != target.shape:
        raise ValueError(f"Target size ({fmt_shape(target.shape)}) must be the same as input size ({fmt_shape(input.shape)})")
    if target.dtype is not input.dtype:
        raise RuntimeError(
            f"Found dtype {TORCH_NAMES[target.dtype]} but expected {TORCH_NAMES[input.dtype]}"
        )
    for name, t in (("input", input), ("target", target)):
        if t.numel() and not bool(((t >= 0) & (t <= 1)).all()):
            raise RuntimeError(f"all elements of {name} should be between 0 and 1")
    return _reduce(BinaryCrossEntropy.apply(input, target), reduction)
