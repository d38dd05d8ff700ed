"""``Module``: parameters and submodules found by attribute assignment, as in PyTorch."""

from __future__ import annotations

from collections import OrderedDict

from .. import dtype as dt
from ..autograd.grad_mode import no_grad
from ..autograd.node import _RemovableHandle
from ..tensor import B, Storage, Tensor
from .parameter import Parameter

__all__ = ["Module", "Sequential", "ModuleList", "zero_grads", "set_call_hook"]

_call_hook = None  # fn(module, args, kwargs) -> output, or None: Module.__call__ runs forward


def set_call_hook(fn):
    """Route every ``Module.__call__`` through ``fn(module, args, kwargs)`` (which must call
    ``module.forward``), or ``None`` for the plain call; returns the previous hook.
    ``kael.viz.record_modules`` uses it to note which module produced which graph node."""
    global _call_hook
    previous, _call_hook = _call_hook, fn
    return previous


def _typename(value) -> str:
    if isinstance(value, Tensor):
        return value.type()
    return type(value).__name__


def _cast_in_place(t: Tensor, dtype) -> None:
    """PyTorch's ``param.data = param.data.to(dtype)``: new memory, the same tensor object."""
    t._data = B.cast(t._data, dtype)
    t._storage = Storage(0)


def _to_dtype(args, kwargs):
    """The dtype ``Module.to`` asks for (``None``: only a device); devices other than the CPU
    raise as PyTorch built without CUDA does."""
    dtype = None
    for a in (*args, *kwargs.values()):
        if isinstance(a, Tensor):
            dtype = a.dtype
        elif isinstance(a, dt.DType) or a in (float, int, bool):
            dtype = a
        elif a is not None:
            kind = getattr(a, "type", None) if not isinstance(a, str) else a.split(":")[0]
            if kind == "cuda":
                raise AssertionError("kael is not compiled with CUDA enabled")
            if kind != "cpu":
                dtype = dt.as_dtype(a)
    return None if dtype is None else dt.as_dtype(dtype)


def zero_grads(params, set_to_none=True) -> None:
    """Drop (or zero in place, under ``no_grad``) the ``.grad`` of every tensor in ``params``;
    ``Module.zero_grad`` and ``Optimizer.zero_grad`` both use it."""
    for p in params:
        if p.grad is None:
            continue
        if set_to_none:
            p.grad = None
        else:
            with no_grad():
                p.grad.zero_()


class Module:
    """Base class of every layer: subclass, assign parameters and submodules in ``__init__``,
    write ``forward``."""

    def __init__(self):
        object.__setattr__(self, "_parameters", OrderedDict())
        object.__setattr__(self, "_modules", OrderedDict())
        object.__setattr__(self, "_buffers", OrderedDict())
        object.__setattr__(self, "_forward_pre_hooks", [])
        object.__setattr__(self, "_forward_hooks", [])
        object.__setattr__(self, "training", True)

    def forward(self, *args, **kwargs):
        raise NotImplementedError(f"{type(self).__name__} must implement forward()")

    def __call__(self, *args, **kwargs):
        if self._forward_pre_hooks:
            for pre in tuple(self._forward_pre_hooks):
                changed = pre(self, args)
                if changed is not None:
                    args = changed if isinstance(changed, tuple) else (changed,)
        hook = _call_hook
        if hook is None:
            out = self.forward(*args, **kwargs)
        else:
            out = hook(self, args, kwargs)  # kael.viz.record_modules: which module made which node
        if self._forward_hooks:
            for post in tuple(self._forward_hooks):
                changed = post(self, args, out)
                if changed is not None:
                    out = changed
        return out

    def register_forward_pre_hook(self, hook):
        """``hook(module, args)`` runs before ``forward``; a result other than ``None`` replaces
        the positional arguments (a tuple, or one value)."""
        self._forward_pre_hooks.append(hook)
        return _RemovableHandle(self._forward_pre_hooks, hook)

    def register_forward_hook(self, hook):
        """``hook(module, args, output)`` runs after ``forward``; a result other than ``None``
        replaces the output."""
        self._forward_hooks.append(hook)
        return _RemovableHandle(self._forward_hooks, hook)

    # -- registration ------------------------------------------------------------------------------
    def __setattr__(self, name, value):
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign attributes before Module.__init__() call")
        params, modules, buffers = self._parameters, self._modules, self._buffers
        if isinstance(value, (Parameter, Module)):
            for d in (params, modules, buffers):
                d.pop(name, None)
            (params if isinstance(value, Parameter) else modules)[name] = value
            self.__dict__.pop(name, None)
        elif name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as parameter '{name}' (kael.nn.Parameter or None expected)")
            params[name] = None
        elif name in modules:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as child module '{name}' (kael.nn.Module or None expected)")
            modules[name] = None
        elif name in buffers:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign '{_typename(value)}' as buffer '{name}' (kael.Tensor or None expected)")
            buffers[name] = value
        else:
            object.__setattr__(self, name, value)

    def __getattr__(self, name):
        d = self.__dict__
        for key in ("_parameters", "_modules", "_buffers"):
            if key in d and name in d[key]:
                return d[key][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name):
        for key in ("_parameters", "_modules", "_buffers"):
            if name in self.__dict__[key]:
                del self.__dict__[key][name]
                return
        object.__delattr__(self, name)

    def register_parameter(self, name, param):
        if param is None:
            self._parameters[name] = None
        else:
            setattr(self, name, param)

    def register_buffer(self, name, tensor):
        self._buffers[name] = tensor

    def add_module(self, name, module):
        self._modules[name] = module

    # -- traversal -------------------------------------------------------------------------------------
    def named_modules(self, prefix=""):
        stack = [(prefix, self)]
        seen = set()
        while stack:
            name, m = stack.pop()
            if id(m) in seen:
                continue
            seen.add(id(m))
            yield name, m
            children = [(f"{name}.{k}" if name else k, c) for k, c in m._modules.items() if c is not None]
            stack.extend(reversed(children))

    def modules(self):
        for _, m in self.named_modules():
            yield m

    def named_children(self):
        for k, m in self._modules.items():
            if m is not None:
                yield k, m

    def children(self):
        for _, m in self.named_children():
            yield m

    def named_parameters(self, prefix="", recurse=True):
        seen = set()
        modules = self.named_modules(prefix) if recurse else [(prefix, self)]
        for mname, m in modules:
            for pname, p in m._parameters.items():
                if p is None or id(p) in seen:
                    continue
                seen.add(id(p))
                yield (f"{mname}.{pname}" if mname else pname), p

    def parameters(self, recurse=True):
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(self):
        for mname, m in self.named_modules():
            for bname, b in m._buffers.items():
                if b is not None:
                    yield (f"{mname}.{bname}" if mname else bname), b

    def buffers(self):
        for _, b in self.named_buffers():
            yield b

    # -- state -------------------------------------------------------------------------------------------
    def train(self, mode=True):
        for m in self.modules():
            object.__setattr__(m, "training", bool(mode))
        return self

    def eval(self):
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        zero_grads(self.parameters(), set_to_none)

    def apply(self, fn):
        for m in reversed(list(self.modules())):
            fn(m)
        return self

    def state_dict(self):
        """Detached tensors (sharing memory) for every parameter and buffer, by dotted name."""
        out = OrderedDict()
        for name, p in self.named_parameters():
            out[name] = p.detach()
        for name, b in self.named_buffers():
            out[name] = b.detach()
        return out

    def load_state_dict(self, state_dict, strict=True):
        """Copy values into the parameters and buffers; with ``strict``, names must match exactly."""
        own = dict(self.named_parameters())
        own.update(self.named_buffers())
        missing = [k for k in own if k not in state_dict]
        unexpected = [k for k in state_dict if k not in own]
        if strict and (missing or unexpected):
            parts = []
            if missing:
                parts.append("missing keys: " + ", ".join(missing))
            if unexpected:
                parts.append("unexpected keys: " + ", ".join(unexpected))
            raise RuntimeError(f"Error(s) in loading state_dict for {type(self).__name__}: " + "; ".join(parts))
        with no_grad():
            for name, value in state_dict.items():
                if name not in own:
                    continue
                target = own[name]
                value = value if isinstance(value, Tensor) else target.new_tensor(value)
                if value.shape != target.shape:
                    raise RuntimeError(
                        f"size mismatch for {name}: copying a param with shape {list(value.shape)}, "
                        f"the shape in current model is {list(target.shape)}"
                    )
                target.copy_(value)
        return (missing, unexpected)

    def to(self, *args, **kwargs):
        """Cast floating-point parameters, their gradients and buffers to a floating dtype, in
        place: the Parameter objects stay the same, so an optimizer made before keeps working.
        Takes a dtype, a device (only the CPU exists), a tensor (its dtype), or both."""
        dtype = _to_dtype(args, kwargs)
        if dtype is not None:
            if not dtype.is_floating_point:
                raise TypeError(f"nn.Module.to only accepts floating point dtypes, but got desired dtype={dtype}")
            self._apply_cast(dtype)
        return self

    def _apply_cast(self, dtype):
        for m in self.modules():
            for t in (*m._parameters.values(), *m._buffers.values()):
                if t is not None and t.dtype.is_floating_point and t.dtype is not dtype:
                    _cast_in_place(t, dtype)
                    if t.grad is not None:
                        _cast_in_place(t.grad, dtype)

    def double(self):
        self._apply_cast(dt.float64)
        return self

    def float(self):
        self._apply_cast(dt.float32)
        return self

    def cpu(self):
        return self

    # -- repr ----------------------------------------------------------------------------------------------
    def extra_repr(self) -> str:
        return ""

    def __repr__(self):
        lines = []
        for name, m in self._modules.items():
            sub = repr(m).replace("\n", "\n  ")
            lines.append(f"({name}): {sub}")
        extra = self.extra_repr()
        if not lines:
            return f"{type(self).__name__}({extra})"
        body = "\n  ".join(([extra] if extra else []) + lines)
        return f"{type(self).__name__}(\n  {body}\n)"

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self._parameters) | set(self._modules))


class Sequential(Module):
    """Modules applied one after the other."""

    def __init__(self, *modules):
        super().__init__()
        if len(modules) == 1 and isinstance(modules[0], (dict, OrderedDict)):
            for name, m in modules[0].items():
                self.add_module(name, m)
        else:
            for i, m in enumerate(modules):
                self.add_module(str(i), m)

    def forward(self, x):
        for m in self._modules.values():
            x = m(x)
        return x

    def __getitem__(self, i):
        items = list(self._modules.values())
        if isinstance(i, slice):
            return Sequential(*items[i])
        return items[i]

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def append(self, module):
        self.add_module(str(len(self._modules)), module)
        return self


class ModuleList(Module):
    """A list of modules whose parameters the parent finds."""

    def __init__(self, modules=()):
        super().__init__()
        for m in modules:
            self.append(m)

    def append(self, module):
        self.add_module(str(len(self._modules)), module)
        return self

    def __getitem__(self, i):
        return list(self._modules.values())[i]

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())
