"""``kael.nn.utils``: gradient clipping and flattening parameters into one vector."""

from __future__ import annotations

import math

from ..autograd.grad_mode import no_grad
from ..creation import tensor
from ..tensor import Tensor

__all__ = ["clip_grad_norm_", "clip_grad_value_", "parameters_to_vector", "vector_to_parameters"]


def _grads(parameters) -> list:
    params = [parameters] if isinstance(parameters, Tensor) else list(parameters)
    return [p.grad for p in params if p.grad is not None]


def _norm(g: Tensor, p: float) -> Tensor:
    a = g.abs()
    if p == math.inf:
        return a.amax() if a.numel() else a.sum()
    if p == 2:
        return (a * a).sum().sqrt()
    return (a**p).sum() ** (1.0 / p)


@no_grad()
def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False) -> Tensor:
    """Scale every gradient by ``max_norm / (total_norm + 1e-6)`` when that is below 1, where
    ``total_norm`` is the norm of all gradients as one vector; returns ``total_norm``."""
    p = float(norm_type)
    grads = _grads(parameters)
    if not grads:
        return tensor(0.0)
    norms = [_norm(g, p).to(grads[0].dtype) for g in grads]
    from ..ops import stack

    total = _norm(stack(norms), p)
    if error_if_nonfinite and not math.isfinite(total.item()):
        raise RuntimeError(
            f"The total norm of order {p} for gradients from `parameters` is non-finite, so it cannot be "
            "clipped. To disable this error and scale the gradients by the non-finite norm anyway, set "
            "`error_if_nonfinite=False`"
        )
    coef = (float(max_norm) / (total + 1e-6)).clamp(max=1.0)
    for g in grads:
        g.mul_(coef.to(g.dtype))
    return total


@no_grad()
def clip_grad_value_(parameters, clip_value) -> None:
    """Clamp every gradient into ``[-clip_value, clip_value]`` in place."""
    v = float(clip_value)
    for g in _grads(parameters):
        g.clamp_(-v, v)


def parameters_to_vector(parameters) -> Tensor:
    from ..ops import cat

    return cat([p.reshape(-1) for p in parameters])


@no_grad()
def vector_to_parameters(vec: Tensor, parameters) -> None:
    """Copy consecutive slices of ``vec`` into the parameters."""
    offset = 0
    for p in parameters:
        n = p.numel()
        p.copy_(vec[offset:offset + n].view_as(p))
        offset += n
