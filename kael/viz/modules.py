"""Which ``nn.Module`` produced which graph node: ``kael.viz.record_modules()``.

While recording is on, every ``Module.__call__`` goes through ``_call``: it pushes the module on
a per-thread stack, runs ``forward``, then walks back from the output's ``grad_fn`` over the nodes
the call created (it stops at the ``grad_fn`` of each tensor argument and at nodes another call
made) and notes the module chain of each, root module first. The parameters' ``AccumulateGrad``
nodes belong to the module that owns the parameter. Nothing is recorded per operation, so the
cost is one walk over each module call's own nodes; with recording off (the default in CPython,
on in the browser playground) ``Module.__call__`` pays one global read.

``origin(node)`` gives the chain ``((module, name), ...)`` or ``None``; the graph data turns it
into ``node["module"]`` and the ``modules`` list (SCHEMA.md).
"""

from __future__ import annotations

import threading
import weakref

from ..autograd.node import AccumulateGrad
from ..nn import module as _module
from ..tensor import Tensor

__all__ = ["record_modules", "origin", "is_recording"]

_origins = weakref.WeakKeyDictionary()  # node -> ((module, name), ...) root first


class _Stack(threading.local):
    def __init__(self):
        self.chains = []


_stack = _Stack()


def origin(node):
    """The module chain that produced ``node`` (root module first), or ``None``."""
    try:
        return _origins.get(node)
    except TypeError:  # not weak-referenceable
        return None


def is_recording() -> bool:
    return _module._call_hook is _call


class record_modules:
    """``kael.viz.record_modules()`` turns recording on (and, used as ``with``, off again at the
    end); ``record_modules(False)`` turns it off."""

    def __init__(self, on=True):
        self._previous = _module.set_call_hook(_call if on else None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _module.set_call_hook(self._previous)
        return False


def _child_name(parent, module) -> str:
    for name, child in parent._modules.items():
        if child is module:
            return name
    return type(module).__name__


def _call(module, args, kwargs):
    chains = _stack.chains
    parent = chains[-1] if chains else None
    name = _child_name(parent[-1][0], module) if parent else type(module).__name__
    chain = (parent or ()) + ((module, name),)
    chains.append(chain)
    try:
        out = module.forward(*args, **kwargs)
    finally:
        chains.pop()
    _tag(out, args, kwargs, chain)
    return out


def _tensors(obj) -> list:
    if isinstance(obj, Tensor):
        return [obj]
    if isinstance(obj, (list, tuple)):
        return [t for item in obj for t in _tensors(item)]
    if isinstance(obj, dict):
        return [t for item in obj.values() for t in _tensors(item)]
    return []


def _tag(out, args, kwargs, chain) -> None:
    """Note ``chain`` on every node the call created, reached from ``out``'s grad_fn."""
    boundary = {t.grad_fn for t in _tensors(args) + _tensors(kwargs) if t.grad_fn is not None}
    stack = [t.grad_fn for t in _tensors(out) if t.grad_fn is not None]
    seen = set()
    own_params = None
    depth = len(chain)
    while stack:
        node = stack.pop()
        if node in seen or node in boundary:
            continue
        seen.add(node)
        known = _origins.get(node)
        if isinstance(node, AccumulateGrad):
            if known is None:
                if own_params is None:
                    own_params = {id(p) for p in chain[-1][0].parameters()}
                if id(node.variable) in own_params:
                    _origins[node] = chain
            continue
        if known is None:
            _origins[node] = chain
        elif known[:depth] != chain:
            continue  # made by another call (an argument's history we did not see as such)
        stack.extend(ni.edge for ni in node.inputs if ni.edge is not None)


def module_entries(order, names=None) -> tuple:
    """``({node: module id}, modules)`` for the nodes in ``order``: each module that produced
    one of them (and its ancestors) once, in walk order, as SCHEMA.md's ``Module`` entries."""
    ids, entries, of_node = {}, [], {}
    for node in order:
        chain = origin(node)
        if chain is None:
            continue
        parent = None
        for depth in range(1, len(chain) + 1):
            key = tuple(id(m) for m, _ in chain[:depth])
            if key not in ids:
                module, name = chain[depth - 1]
                ids[key] = f"m{len(entries)}"
                entries.append(_module_entry(ids[key], parent, chain[:depth], module, name))
            parent = ids[key]
        of_node[node] = parent
    return of_node, entries


def _module_entry(mid, parent, chain, module, name) -> dict:
    try:
        extra = module.extra_repr()
    except Exception:  # noqa: BLE001 - a user's extra_repr must not break the drawing
        extra = ""
    kind = type(module).__name__
    return {
        "id": mid,
        "parent": parent,
        "name": name,
        "path": ".".join(n for _, n in chain[1:]),
        "type": kind,
        "extra": extra,
        "label": kind if parent is None else f"{name}: {kind}",
    }


def parameter_name(node) -> str | None:
    """``"0.weight"`` for the AccumulateGrad of a recorded module's parameter, else ``None``."""
    chain = origin(node) if isinstance(node, AccumulateGrad) else None
    if chain is None:
        return None
    module = chain[-1][0]
    for name, p in module._parameters.items():
        if p is node.variable:
            path = ".".join(n for _, n in chain[1:])
            return f"{path}.{name}" if path else name
    return None
