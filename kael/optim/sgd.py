"""``SGD`` with momentum, dampening, Nesterov and weight decay."""

from __future__ import annotations

from ..autograd.grad_mode import no_grad
from .optimizer import Optimizer

__all__ = ["SGD"]


class SGD(Optimizer):
    """v = momentum * v + (1 - dampening) * (grad + weight_decay * p);  p -= lr * v
    (Nesterov: p -= lr * (g + momentum * v))."""

    def __init__(self, params, lr=1e-3, momentum=0.0, dampening=0.0, weight_decay=0.0, nesterov=False, maximize=False):
        if lr < 0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay,
                        nesterov=nesterov, maximize=maximize)
        super().__init__(params, defaults)

    @no_grad()
    def step(self, closure=None):
        loss = None if closure is None else _with_grad(closure)
        for group, p in self._params_with_grad():
            g = -p.grad if group["maximize"] else p.grad
            wd, momentum = group["weight_decay"], group["momentum"]
            if wd:
                g = g + wd * p
            if momentum:
                state = self.state.setdefault(p, {})
                buf = state.get("momentum_buffer")
                if buf is None:
                    buf = state["momentum_buffer"] = g.clone()
                else:
                    damp = group["dampening"]
                    buf.mul_(momentum).add_(g * (1 - damp) if damp else g)
                g = g + momentum * buf if group["nesterov"] else buf
            p.sub_(g * group["lr"])
        return loss


def _with_grad(closure):
    from ..autograd.grad_mode import enable_grad

    with enable_grad():
        return closure()
