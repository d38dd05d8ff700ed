"""Reverse-mode automatic differentiation, as ADR 0005 decides it.

``backward`` accumulates into leaves' ``.grad``; ``grad`` returns gradients without touching
``.grad``. Both run the engine in ``engine.py``. Only first-order gradients exist: the backward
pass records no history (ADR 0005: higher-order derivatives are out of scope).
"""

from __future__ import annotations

from . import graph
from .engine import run_backward
from .function import Function, FunctionCtx, once_differentiable
from .gradcheck import gradcheck
from .grad_mode import enable_grad, inference_mode, is_grad_enabled, no_grad, set_grad_enabled
from .node import AccumulateGrad, FunctionNode, Node, NodeInput
from .source import detect_source, is_detect_source_enabled, set_detect_source

__all__ = [
    "backward", "grad", "Function", "FunctionCtx", "once_differentiable", "gradcheck", "graph",
    "Node", "NodeInput", "FunctionNode", "AccumulateGrad", "no_grad", "enable_grad",
    "set_grad_enabled", "is_grad_enabled", "inference_mode", "set_detect_source",
    "is_detect_source_enabled", "detect_source",
]


def _as_tuple(x):
    if x is None:
        return None
    if isinstance(x, (list, tuple)):
        return tuple(x)
    return (x,)


def _no_create_graph(create_graph):
    if create_graph:
        raise NotImplementedError(
            "create_graph=True is not supported: kael's backward computes first-order gradients "
            "only (ADR 0005: higher-order derivatives are out of scope)"
        )


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    """Accumulate the gradients of ``tensors`` into the ``.grad`` of the leaves (or of ``inputs``)."""
    _no_create_graph(create_graph)
    roots = _as_tuple(tensors)
    grads = _as_tuple(grad_tensors) or (None,) * len(roots)
    if len(grads) != len(roots):
        raise RuntimeError(f"got {len(grads)} gradients for {len(roots)} tensors")
    inputs = _as_tuple(inputs)
    if inputs is not None and not inputs:
        raise RuntimeError("'inputs' argument to backward() cannot be empty.")
    run_backward(roots, grads, retain_graph=bool(retain_graph), inputs=inputs)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, allow_unused=False):
    """The gradients of ``outputs`` with respect to ``inputs``, as a tuple; ``.grad`` is untouched."""
    _no_create_graph(create_graph)
    roots = _as_tuple(outputs)
    grads = _as_tuple(grad_outputs) or (None,) * len(roots)
    if len(grads) != len(roots):
        raise RuntimeError(f"got {len(grads)} grad_outputs for {len(roots)} outputs")
    inputs = _as_tuple(inputs)
    return run_backward(
        roots, grads, retain_graph=bool(retain_graph), inputs=inputs, capture=True, allow_unused=allow_unused
    )
