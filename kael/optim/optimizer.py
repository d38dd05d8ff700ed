"""``kael.optim``: SGD (momentum, weight decay) and Adam. Updates run under ``no_grad``."""

from __future__ import annotations

from ..autograd.grad_mode import no_grad
from ..nn.module import zero_grads

__all__ = ["Optimizer", "SGD", "Adam"]


class Optimizer:
    def __init__(self, params, defaults):
        params = list(params)
        if not params:
            raise ValueError("optimizer got an empty parameter list")
        groups = params if isinstance(params[0], dict) else [{"params": params}]
        self.defaults = defaults
        self.param_groups = []
        for g in groups:
            group = dict(defaults)
            group.update(g)
            group["params"] = list(group["params"])
            for p in group["params"]:
                if not p.requires_grad:
                    raise ValueError("optimizer can only optimize tensors that require grad")
            self.param_groups.append(group)
        self.state = {}

    def zero_grad(self, set_to_none=True):
        zero_grads((p for group in self.param_groups for p in group["params"]), set_to_none)

    def step(self):
        raise NotImplementedError

    def __repr__(self):
        lines = [f"{type(self).__name__} ("]
        for i, g in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            lines.extend(f"    {k}: {v}" for k, v in sorted(g.items()) if k != "params")
        lines.append(")")
        return "\n".join(lines)


class SGD(Optimizer):
    """p -= lr * v, where v = momentum * v + (1 - dampening) * (grad + weight_decay * p)."""

    def __init__(self, params, lr=1e-3, momentum=0.0, dampening=0.0, weight_decay=0.0, nesterov=False):
        if lr < 0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay, nesterov=nesterov))

    @no_grad()
    def step(self):
        for group in self.param_groups:
            lr, momentum, damp, wd = group["lr"], group["momentum"], group["dampening"], group["weight_decay"]
            for p in group["params"]:
                g = p.grad
                if g is None:
                    continue
                if wd:
                    g = g + wd * p
                if momentum:
                    state = self.state.setdefault(id(p), {})
                    buf = state.get("momentum_buffer")
                    if buf is None:
                        buf = state["momentum_buffer"] = g.clone()
                    else:
                        buf.mul_(momentum).add_(g * (1 - damp) if damp else g)
                    g = g + momentum * buf if group["nesterov"] else buf
                p.sub_(g * lr)


class Adam(Optimizer):
    """Adam with bias correction: m, v running moments of grad and grad**2."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0):
        if lr < 0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not (0.0 <= betas[0] < 1.0 and 0.0 <= betas[1] < 1.0):
            raise ValueError(f"Invalid beta parameters: {betas}")
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay))

    @no_grad()
    def step(self):
        for group in self.param_groups:
            lr, (b1, b2), eps, wd = group["lr"], group["betas"], group["eps"], group["weight_decay"]
            for p in group["params"]:
                g = p.grad
                if g is None:
                    continue
                if wd:
                    g = g + wd * p
                state = self.state.setdefault(id(p), {})
                if not state:
                    state["step"] = 0
                    state["exp_avg"] = g * 0
                    state["exp_avg_sq"] = g * 0
                state["step"] += 1
                t = state["step"]
                m, v = state["exp_avg"], state["exp_avg_sq"]
                m.mul_(b1).add_(g * (1 - b1))
                v.mul_(b2).add_(g * g * (1 - b2))
                m_hat = m / (1 - b1**t)
                v_hat = v / (1 - b2**t)
                p.sub_(lr * m_hat / (v_hat.sqrt() + eps))
