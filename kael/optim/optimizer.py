"""``Optimizer``: parameter groups, per-parameter state, ``zero_grad``, state dicts, and the step
hooks PyTorch has (``register_step_pre_hook`` / ``register_step_post_hook`` on one optimizer,
``register_optimizer_step_pre_hook`` / ``register_optimizer_step_post_hook`` on all of them).

Every subclass's ``step`` is wrapped once, when the class is defined, by ``_hooked_step``: global
pre hooks, the optimizer's pre hooks, ``step``, the optimizer's post hooks, global post hooks (the
order of PyTorch's ``profile_hook_step``). A ``step`` that calls ``super().step()`` runs the hooks
once, not once per class. With no hooks registered the wrapper costs two empty loops.
"""

from __future__ import annotations

import copy
import functools

from ..autograd.node import _RemovableHandle
from ..nn.module import zero_grads
from ..tensor import Tensor

__all__ = ["Optimizer", "register_optimizer_step_pre_hook", "register_optimizer_step_post_hook"]

_global_optimizer_pre_hooks: list = []
_global_optimizer_post_hooks: list = []


def register_optimizer_step_pre_hook(hook) -> _RemovableHandle:
    """Run ``hook(optimizer, args, kwargs)`` before every optimizer's ``step``; it returns None or
    a new ``(args, kwargs)`` for the step. Returns a handle whose ``remove()`` unregisters it."""
    _global_optimizer_pre_hooks.append(hook)
    return _RemovableHandle(_global_optimizer_pre_hooks, hook)


def register_optimizer_step_post_hook(hook) -> _RemovableHandle:
    """Run ``hook(optimizer, args, kwargs)`` after every optimizer's ``step``. Returns a handle
    whose ``remove()`` unregisters it."""
    _global_optimizer_post_hooks.append(hook)
    return _RemovableHandle(_global_optimizer_post_hooks, hook)


def _run_pre_hooks(hooks, optimizer, args, kwargs):
    for hook in list(hooks):
        result = hook(optimizer, args, kwargs)
        if result is None:
            continue
        if not (isinstance(result, tuple) and len(result) == 2):
            raise RuntimeError(f"an optimizer step pre hook must return None or a tuple of (new_args, new_kwargs), "
                               f"but got {result!r}")
        args, kwargs = result
    return args, kwargs


def _hooked_step(step):
    """``step`` with the optimizer's and the global step hooks around it."""

    @functools.wraps(step)
    def wrapper(self, *args, **kwargs):
        if self.__dict__.get("_in_step"):  # super().step() from a subclass's step: hooks ran once
            return step(self, *args, **kwargs)
        pre, post = self.__dict__.get("_step_pre_hooks", ()), self.__dict__.get("_step_post_hooks", ())
        if _global_optimizer_pre_hooks or pre:
            args, kwargs = _run_pre_hooks([*_global_optimizer_pre_hooks, *pre], self, args, kwargs)
        self._in_step = True
        try:
            out = step(self, *args, **kwargs)
        finally:
            self._in_step = False
        for hook in [*post, *_global_optimizer_post_hooks]:
            hook(self, args, kwargs)
        return out

    wrapper.hooked = True
    return wrapper


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

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        step = cls.__dict__.get("step")
        if step is not None and not getattr(step, "hooked", False):
            cls.step = _hooked_step(step)

    def __init__(self, params, defaults):
        self._step_pre_hooks = []
        self._step_post_hooks = []
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

    def register_step_pre_hook(self, hook) -> _RemovableHandle:
        """Run ``hook(optimizer, args, kwargs)`` before this optimizer's ``step``; it returns None
        or a new ``(args, kwargs)``. Returns a handle whose ``remove()`` unregisters it."""
        self._step_pre_hooks.append(hook)
        return _RemovableHandle(self._step_pre_hooks, hook)

    def register_step_post_hook(self, hook) -> _RemovableHandle:
        """Run ``hook(optimizer, args, kwargs)`` after this optimizer's ``step``. Returns a handle
        whose ``remove()`` unregisters it."""
        self._step_post_hooks.append(hook)
        return _RemovableHandle(self._step_post_hooks, hook)

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
