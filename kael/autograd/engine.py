"""The backward engine, in ADR 0005's three steps: seed, count, process.

1. Seed: a root with one element gets ``ones_like(root)``; any other root needs an explicit
   gradient of its shape.
2. Count: walk every node reachable from the roots and count, for each node, the edges that
   point to it.
3. Process: a node is ready when its count reaches zero, i.e. every contribution to its gradient
   has arrived. Pop a ready node from the stack, apply it, send each returned gradient into the
   buffer of the target node (decrementing the target's count), release the node's saved
   tensors.

Everything walks with explicit stacks; the whole pass runs with grad mode off (first-order
only) and with Python's cyclic collector paused. A tracer (``kael.viz.trace``) may watch the
steps (``tracer.py`` describes the protocol); when none is installed the engine talks to
``NO_TRACER``, whose hooks do nothing. ``targets.py`` holds what a pass differentiates toward.
"""

from __future__ import annotations

import gc

from ..backend import get_backend
from ..tensor import Tensor as _Tensor
from ..tensor import _wrap
from .grad_mode import state as _grad_state
from .hooks import run_node_hooks, run_pre_hooks
from .node import AccumulateGrad
from .source import here
from .source import state as _source
from .targets import ALL_NODES, Targets, gradient_edge
from .tracer import NO_TRACER, NoTracer

__all__ = ["run_backward", "gradient_edge", "set_tracer", "count_dependencies", "NoTracer", "Targets"]

_B = get_backend()
_tracer = None  # the installed tracer (kael.viz.trace), or None
_depth = 0  # nested backward passes (a checkpoint recomputing in backward) are not traced


def set_tracer(tracer):
    """Install ``tracer`` (or ``None``); returns the previous one. ``NoTracer`` (tracer.py)
    documents the protocol a tracer implements."""
    global _tracer
    previous, _tracer = _tracer, tracer
    return previous


def _fmt(shape) -> str:
    return "[" + ", ".join(str(s) for s in shape) + "]"


# -- step 1: seed ----------------------------------------------------------------------------


def _seed(roots, grad_roots):
    nodes, seeds = [], []
    for i, (root, grad) in enumerate(zip(roots, grad_roots)):
        node = gradient_edge(root)
        if node is None:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have a grad_fn")
        if grad is None:
            if root.numel() != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            data = root._data
            grad = _wrap(_B.full(_B.shape(data), 1, _B.dtype(data)))  # root.new_ones(root.shape)
        else:
            if not isinstance(grad, _Tensor):
                grad = root.new_tensor(grad)
            if tuple(grad.shape) != tuple(root.shape):
                raise RuntimeError(
                    f"Mismatch in shape: grad_output[{i}] has a shape of {_fmt(grad.shape)} and "
                    f"output[{i}] has a shape of {_fmt(root.shape)}"
                )
            if grad.dtype is not root.dtype:
                grad = grad.to(root.dtype)
        nodes.append(node)
        seeds.append(grad)
    return nodes, seeds


# -- step 2: count ---------------------------------------------------------------------------


def count_dependencies(root_nodes) -> dict:
    """For every node reachable from ``root_nodes``: how many edges point to it."""
    deps = {}
    stack = list(dict.fromkeys(root_nodes))  # a root given twice is walked once
    seen = set(stack)
    while stack:
        node = stack.pop()
        for ni in node.inputs:
            edge = ni.edge
            if edge is None:
                continue
            deps[edge] = deps.get(edge, 0) + 1
            if edge not in seen:
                seen.add(edge)
                stack.append(edge)
    return deps


# -- step 3: process -------------------------------------------------------------------------


def _check_gradients(node, grads):
    """ADR 0005: every returned gradient has the shape and dtype its NodeInput recorded."""
    inputs = node.inputs
    if len(grads) != len(inputs):
        raise RuntimeError(
            f"function {node.name()} returned an incorrect number of gradients "
            f"(expected {len(inputs)}, got {len(grads)})"
        )
    for i, (ni, g) in enumerate(zip(inputs, grads)):
        if g is None or ni.edge is None:
            continue
        if type(g) is not _Tensor and not isinstance(g, _Tensor):
            raise TypeError(
                f"function {node.name()} returned {type(g).__name__} as the gradient at index {i}; "
                "expected a Tensor or None"
            )
        data = g._data
        shape = _B.shape(data)
        if shape != ni.shape:
            raise RuntimeError(
                f"function {node.name()} returned an invalid gradient at index {i}: "
                f"got shape {_fmt(shape)} but expected shape {_fmt(ni.shape)}"
            )
        dtype = _B.dtype(data)
        if dtype is not ni.dtype:
            raise RuntimeError(
                f"function {node.name()} returned an invalid gradient at index {i}: "
                f"got dtype {dtype.name} but expected dtype {ni.dtype.name}"
            )


def _apply(node, grad, targets, tracer, traced):
    """Run one node on its complete gradient: pre-hooks, capture, the node, post-hooks.
    Returns the gradients for its inputs (none for a leaf's AccumulateGrad). ``traced``:
    ``tracer`` is not ``NO_TRACER`` (an unwatched pass makes no tracer calls)."""
    if traced:
        tracer.on_node(node, grad)
    hooks = node._pre_hooks
    if hooks:
        grad = run_pre_hooks(node, grad, tensor_phase=True)
    if targets.nodes and node in targets.nodes:  # a target's gradient is the one after its tensor's hooks
        grad = targets.take(node, grad, tracer)
        if grad is None:
            return ()
    if hooks:
        grad = run_pre_hooks(node, grad, tensor_phase=False)
        tracer.on_hooks(node, "pre", len(hooks), grad)
    if type(node) is AccumulateGrad:
        if targets.accumulates(node):
            node.apply(grad)
            if traced:
                tracer.on_accumulate(node, node.variable._meta.grad)
        return ()
    grads = node.apply(grad)
    _check_gradients(node, grads)
    if node._hooks:
        grads = run_node_hooks(node, grads, grad)
        tracer.on_hooks(node, "post", len(node._hooks), grads)
    return grads


def _send(node, grads, buffers, deps, ready, tracer, traced):
    """Add each returned gradient into its target's buffer and count the edge as done; a
    target whose count reaches zero becomes ready."""
    n = len(grads)
    for i, ni in enumerate(node.inputs):
        edge = ni.edge
        if edge is None:
            continue
        g = grads[i] if i < n else None
        if g is not None:
            after = buffers[edge] = buffers[edge] + g if edge in buffers else g
        else:
            after = buffers.get(edge)
        before = deps[edge]
        deps[edge] = before - 1
        if before == 1:
            ready.append(edge)
        if traced:
            tracer.on_send(node, i, edge, g, after, before, before - 1, before == 1)


def _process(ready, buffers, deps, targets, retain_graph, tracer):
    """Step 3: pop a ready node, apply it, send its gradients, release it."""
    node = None
    where = here() if _source.enabled else None  # the backward call, for the second-backward error
    needed = targets.needed  # None: every node runs
    traced = tracer is not NO_TRACER
    try:
        while ready:
            node = ready.pop()
            grad = buffers.pop(node, None)
            skip = grad is None or (needed is not None and node not in needed)
            if skip:
                tracer.on_skip(node)
                grads = ()
            else:
                grads = _apply(node, grad, targets, tracer, traced)
            if node.inputs:  # a leaf's AccumulateGrad sends nothing
                _send(node, grads, buffers, deps, ready, tracer, traced)
            released = not retain_graph and not skip
            if released and type(node) is not AccumulateGrad:
                node.release_variables(where)
            if traced:
                tracer.on_step_end(node, list(ready), released)
    except BaseException as exc:
        tracer.on_error(node, exc)
        raise


def run_backward(roots, grad_roots, retain_graph=False, inputs=None, capture=False, allow_unused=False):
    """Backpropagate from ``roots``.

    ``inputs``: tensors to accumulate into (``backward(inputs=...)``) or, with ``capture``, to
    return gradients for without touching ``.grad`` (``autograd.grad``).
    """
    global _depth
    tracer = _tracer if _tracer is not None and _depth == 0 else NO_TRACER
    root_nodes, seeds = _seed(roots, grad_roots)
    targets = Targets(inputs, capture, root_nodes) if inputs is not None else ALL_NODES
    deps = count_dependencies(root_nodes)

    buffers = {}
    for node, seed in zip(root_nodes, seeds):
        buffers[node] = buffers[node] + seed if node in buffers else seed
    ready = [node for node in dict.fromkeys(reversed(root_nodes)) if deps.get(node, 0) == 0]
    tracer.on_start(root_nodes, seeds, deps, roots, list(ready))

    gc_was_enabled = gc.isenabled()
    gc.disable()
    grad_mode_before = _grad_state.enabled
    _grad_state.enabled = False
    _depth += 1
    try:
        _process(ready, buffers, deps, targets, retain_graph, tracer)
    finally:
        _depth -= 1
        _grad_state.enabled = grad_mode_before
        if gc_was_enabled:
            gc.enable()
        tracer.on_end()
    return targets.result(allow_unused) if capture else None
