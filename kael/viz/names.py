"""Names a learner wrote: tensors named by ``params=`` and by the caller's own variables.

``caller_names(frame)`` reads the variables of the frame that called ``show()``/``trace()``: a
tensor bound to exactly one name there gets that name (a tensor under two names is ambiguous and
stays unnamed), and a module's parameters get ``module_name.param_path`` (``model.0.weight``).
Locals come before globals; names starting with ``_`` are skipped.
"""

from __future__ import annotations

import sys

from ..tensor import Tensor

__all__ = ["caller_names", "caller_frame", "merge_names", "names_in"]


def caller_frame(depth=2):
    """The frame ``depth`` levels up, skipping kael.viz's own frames; ``None`` if unavailable."""
    try:
        frame = sys._getframe(depth)
    except (AttributeError, ValueError):
        return None
    while frame is not None and frame.f_globals.get("__name__", "").startswith("kael.viz"):
        frame = frame.f_back
    return frame


def _scope_names(scope) -> dict:
    """``{id(tensor): (name, tensor)}`` for the tensors of one namespace bound to one name."""
    from ..nn.module import Module

    found, ambiguous = {}, set()
    for name, value in list(scope.items()):
        if name.startswith("_"):
            continue
        if isinstance(value, Tensor):
            pairs = [(name, value)]
        elif isinstance(value, Module):
            pairs = [(f"{name}.{p}", t) for p, t in value.named_parameters()]
        else:
            continue
        for label, t in pairs:
            key = id(t)
            if key in found and found[key][0] != label:
                ambiguous.add(key)
            else:
                found[key] = (label, t)
    return {k: v for k, v in found.items() if k not in ambiguous}


def caller_names(frame) -> list:
    """``[(name, tensor)]`` for the unambiguous tensors in ``frame``'s locals, then globals."""
    if frame is None:
        return []
    scopes = [frame.f_locals]
    if frame.f_globals is not frame.f_locals:
        scopes.append(frame.f_globals)
    names = {}
    for scope in scopes:
        for key, pair in _scope_names(scope).items():
            names.setdefault(key, pair)
    return list(names.values())


def names_in(scope) -> list:
    """``[(name, tensor)]`` for the unambiguous tensors of one namespace (a module's globals)."""
    return list(_scope_names(scope).values())


def merge_names(params, auto) -> list | None:
    """``params`` (dict or pairs) first, then the automatic names of tensors it does not name."""
    if not auto:
        return params
    from .walk import named_tensors

    given = named_tensors(params)
    named = {id(t) for _, t in given}
    return given + [(n, t) for n, t in auto if id(t) not in named]
