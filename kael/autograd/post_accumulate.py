"""Post-accumulate-grad hooks: ``leaf.register_post_accumulate_grad_hook(fn)`` runs ``fn(leaf)``
each time the leaf's ``AccumulateGrad`` has added a gradient into ``leaf.grad`` (PyTorch uses
it to step an optimizer per parameter during backward).

The hooks live here, keyed by the tensor's id and dropped when the tensor dies, so the engine's
hot path pays one test of an empty dict when no hook is registered."""

from __future__ import annotations

import weakref

from .node import _RemovableHandle

__all__ = ["register", "run", "hooks"]

hooks: dict = {}  # id(tensor) -> [fn, ...]


def register(tensor, fn) -> _RemovableHandle:
    if not tensor.requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if tensor.grad_fn is not None:
        raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
    key = id(tensor)
    if key not in hooks:
        hooks[key] = []
        weakref.finalize(tensor, hooks.pop, key, None)
    hooks[key].append(fn)
    return _RemovableHandle(hooks[key], fn)


def run(tensor) -> None:
    for fn in tuple(hooks.get(id(tensor), ())):
        if fn(tensor) is not None:
            raise RuntimeError("post accumulate grad hooks should return None")
