"""``Adam`` and ``AdamW`` (decoupled weight decay), as PyTorch computes them."""

from __future__ import annotations

import math

from ..autograd.grad_mode import no_grad
from .optimizer import Optimizer
from .sgd import _with_grad

__all__ = ["Adam", "AdamW"]


class Adam(Optimizer):
    """m = b1 m + (1 - b1) g;  v = b2 v + (1 - b2) g^2;
    p -= lr / (1 - b1^t) * m / (sqrt(v) / sqrt(1 - b2^t) + eps)

    ``weight_decay`` adds ``wd * p`` to the gradient (L2); ``AdamW`` instead scales ``p`` by
    ``1 - lr * wd`` before the step."""

    decoupled = False

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, amsgrad=False, maximize=False):
        if lr < 0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if eps < 0:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        if weight_decay < 0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay, amsgrad=amsgrad, maximize=maximize)
        super().__init__(params, defaults)

    @no_grad()
    def step(self, closure=None):
        loss = None if closure is None else _with_grad(closure)
        for group, p in self._params_with_grad():
            g = -p.grad if group["maximize"] else p.grad
            lr, wd = group["lr"], group["weight_decay"]
            if wd and self.decoupled:
                p.mul_(1 - lr * wd)
            elif wd:
                g = g + wd * p
            self._update(p, g, group)
        return loss

    def _update(self, p, g, group):
        (b1, b2), eps = group["betas"], group["eps"]
        state = self.state.setdefault(p, {})
        if not state:
            state["step"] = 0
            state["exp_avg"] = g.new_zeros(g.shape)
            state["exp_avg_sq"] = g.new_zeros(g.shape)
            if group["amsgrad"]:
                state["max_exp_avg_sq"] = g.new_zeros(g.shape)
        state["step"] += 1
        t = state["step"]
        m, v = state["exp_avg"], state["exp_avg_sq"]
        m.add_((g - m) * (1 - b1))
        v.mul_(b2).add_(g * g * (1 - b2))
        if group["amsgrad"]:
            state["max_exp_avg_sq"].copy_(state["max_exp_avg_sq"].maximum(v))
            v = state["max_exp_avg_sq"]
        step_size = group["lr"] / (1 - b1**t)
        denom = v.sqrt() / math.sqrt(1 - b2**t) + eps
        p.sub_(m / denom * step_size)


class AdamW(Adam):
    """Adam with decoupled weight decay (default 0.01): p *= 1 - lr * wd, then Adam's step."""

    decoupled = True

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, maximize=False):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, maximize)
