"""``Optimizer``: parameter groups, per-parameter state, ``zero_grad`` and state dicts."""

from __future__ import annotations

import copy

from ..nn.module import zero_grads
from ..tensor import Tensor

__all__ = ["Optimizer"]


def _param_groups(params) -> list:
    if isinstance(params, Tensor):
        raise TypeError(
            "params argument given to the optimizer should be an iterable of Tensors or dicts, "
            f"but got {params.type()}"
        )
    params = list(params)
    if not params:
        raise ValueError("optimizer got an empty parameter list")
    return params if isinstance(params[0], dict) else [{"params": params}]


class Optimizer:
    """Holds ``param_groups`` (dicts of ``params`` and hyperparameters) and ``state`` (a dict
    keyed by parameter). Subclasses write ``step``, which runs under ``no_grad``."""

    def __init__(self, params, defaults):
        self.defaults = defaults
        self.param_groups = []
        self.state = {}
        for group in _param_groups(params):
            self.add_param_group(group)

    def add_param_group(self, param_group: dict) -> None:
        """Add a group of parameters; hyperparameters it leaves out come from ``defaults``."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group).__name__}")
        group = dict(param_group)
        params = group["params"]
        group["params"] = [params] if isinstance(params, Tensor) else list(params)
        for p in group["params"]:
            if not isinstance(p, Tensor):
                raise TypeError(f"optimizer can only optimize Tensors, but one of the params is {type(p).__name__}")
            if not p.is_leaf:
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            group.setdefault(name, default)
        seen = {id(p) for g in self.param_groups for p in g["params"]}
        if any(id(p) in seen for p in group["params"]):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(group)

    def zero_grad(self, set_to_none=True):
        zero_grads((p for group in self.param_groups for p in group["params"]), set_to_none)

    def step(self):
        raise NotImplementedError(f"{type(self).__name__} must implement step()")

    def _params_with_grad(self):
        """``(group, p)`` for every parameter that has a gradient."""
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    yield group, p

    # -- state dicts -----------------------------------------------------------------------------
    def state_dict(self) -> dict:
        """``{"state": {index: {...}}, "param_groups": [{..., "params": [index, ...]}]}``: the
        parameters replaced by their position over all groups, as in PyTorch."""
        index = {}
        groups = []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            packed["params"] = [index.setdefault(id(p), len(index)) for p in group["params"]]
            groups.append(packed)
        state = {index[id(p)]: dict(s) for p, s in self.state.items() if id(p) in index}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict: dict) -> None:
        groups, saved = self.param_groups, state_dict["param_groups"]
        if len(groups) != len(saved):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved)):
            raise ValueError(
                "loaded state dict contains a parameter group that doesn't match the size of optimizer's group"
            )
        by_index = {}
        for g, s in zip(groups, saved):
            by_index.update(zip(s["params"], g["params"]))
            g.update({k: copy.deepcopy(v) for k, v in s.items() if k != "params"})
        self.state = {}
        for i, s in state_dict["state"].items():
            p = by_index[int(i)]
            self.state[p] = {k: _state_value(v, p) for k, v in s.items()}

    def __repr__(self):
        lines = [f"{type(self).__name__} ("]
        for i, g in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            lines.extend(f"    {k}: {v}" for k, v in sorted(g.items()) if k != "params")
        lines.append(")")
        return "\n".join(lines)


def _state_value(v, p):
    """A loaded state tensor is copied and cast to its parameter's dtype (``step`` stays a number)."""
    if isinstance(v, Tensor):
        v = v.detach().clone()
        return v.to(p.dtype) if v.dtype.is_floating_point and v.ndim else v
    return copy.deepcopy(v)
