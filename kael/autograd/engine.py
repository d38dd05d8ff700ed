"""The backward engine, in ADR 0005's three steps: seed, count, process.

1. Seed: a root with one element gets ``ones_like(root)``; any other root needs an explicit
   gradient of its shape.
2. Count: walk every node reachable from the roots and count, for each node, the edges that
   point to it.
3. Process: a node is ready when its count reaches zero, i.e. every contribution to its gradient
   has arrived. Pop a ready node from the stack, apply it, add each returned gradient into the
   buffer of the target node and decrement the target's count.

Everything walks with explicit stacks; the whole pass runs with grad mode off (first-order
only) and with Python's cyclic collector paused. A tracer (``kael.viz.trace``) may watch the
steps; when none is installed the hooks cost one ``is None`` test each.
"""

from __future__ import annotations

import gc

from ..backend import get_backend
from .grad_mode import state as _grad_state
from .node import AccumulateGrad

__all__ = ["run_backward", "gradient_edge", "set_tracer"]

_B = get_backend()
_Tensor = None  # kael.tensor.Tensor, bound on first use (kael.tensor imports this package)
_tracer = None
_depth = 0  # nested backward passes (a checkpoint recomputing in backward) are not traced


def set_tracer(tracer):
    """Install ``tracer`` (or ``None``); returns the previous one.

    The tracer's methods, in the order the engine calls them (``kael.viz.Trace`` implements
    them): ``on_start(root_nodes, seeds, deps, roots, ready)``, then per popped node
    ``on_skip(node)`` or ``on_node(node, grad)`` [``on_hooks(node, "pre", n, grad)``]
    [``on_capture(node, input_indices, grad)``] [``on_accumulate(node, leaf_grad)``]
    [``on_hooks(node, "post", n, grads)``], ``on_send(node, input_nr, target, grad, buffer_after,
    count_before, count_after, became_ready)`` per non-null edge, ``on_step_end(node, ready,
    released)``; ``on_error(node, exc)`` if the pass fails; ``on_end()`` always.
    """
    global _tracer
    previous, _tracer = _tracer, tracer
    return previous


def gradient_edge(tensor):
    """The node that receives ``tensor``'s gradient: its grad_fn, or its leaf accumulator."""
    meta = tensor._meta
    if meta is None:
        return None
    if meta.grad_fn is not None:
        return meta.grad_fn
    if meta.requires_grad:
        return meta.get_accumulator(tensor)
    return None


def _fmt(shape) -> str:
    return "[" + ", ".join(str(s) for s in shape) + "]"


# -- step 1: seed ----------------------------------------------------------------------------


def _seed(roots, grad_roots):
    from ..tensor import Tensor

    nodes, seeds = [], []
    for i, (root, grad) in enumerate(zip(roots, grad_roots)):
        node = gradient_edge(root)
        if node is None:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have a grad_fn")
        if grad is None:
            if root.numel() != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            grad = root.new_ones(root.shape)
        else:
            if not isinstance(grad, Tensor):
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
    seen = set(root_nodes)
    stack = list(root_nodes)
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


def _needed(root_nodes, targets) -> set:
    """Nodes from which some target is reachable (post-order walk with an explicit stack)."""
    needed = set()
    done = set()
    stack = [(n, False) for n in root_nodes]
    while stack:
        node, expanded = stack.pop()
        if expanded:
            if node in targets or any(ni.edge in needed for ni in node.inputs if ni.edge is not None):
                needed.add(node)
            continue
        if node in done:
            continue
        done.add(node)
        stack.append((node, True))
        stack.extend((ni.edge, False) for ni in node.inputs if ni.edge is not None and ni.edge not in done)
    return needed


# -- step 3: process -------------------------------------------------------------------------


def _check_gradients(node, grads):
    inputs = node.inputs
    if len(grads) != len(inputs):
        raise RuntimeError(
            f"function {node.name()} returned an incorrect number of gradients "
            f"(expected {len(inputs)}, got {len(grads)})"
        )
    for i, (ni, g) in enumerate(zip(inputs, grads)):
        if g is None or ni.edge is None:
            continue
        data = getattr(g, "_data", None)
        if data is None or not isinstance(g, _Tensor):
            raise TypeError(
                f"function {node.name()} returned {type(g).__name__} as the gradient at index {i}; "
                "expected a Tensor or None"
            )
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


def _run_pre_hooks(node, grad):
    for hook in node._pre_hooks:
        result = hook((grad,))
        if result is not None:
            grad = result[0]
    return grad


def run_backward(roots, grad_roots, retain_graph=False, inputs=None, capture=False, allow_unused=False):
    """Backpropagate from ``roots``.

    ``inputs``: tensors to accumulate into (``backward(inputs=...)``) or, with ``capture``, to
    return gradients for without touching ``.grad`` (``autograd.grad``).
    """
    global _depth, _Tensor
    if _Tensor is None:
        from ..tensor import Tensor

        _Tensor = Tensor
    tracer = _tracer if _depth == 0 else None
    root_nodes, seeds = _seed(roots, grad_roots)

    targets = None
    if inputs is not None:
        targets = {}
        for i, t in enumerate(inputs):
            node = gradient_edge(t)
            if node is None:
                raise RuntimeError(f"element {i} of the inputs does not require grad and does not have a grad_fn")
            targets.setdefault(node, []).append(i)

    deps = count_dependencies(root_nodes)
    needed = _needed(root_nodes, targets) if targets is not None else None

    buffers = {}
    for node, seed in zip(root_nodes, seeds):
        buffers[node] = buffers[node] + seed if node in buffers else seed
    ready = []
    for node in reversed(root_nodes):
        if deps.get(node, 0) == 0 and node not in ready:
            ready.append(node)
    captured = [None] * len(inputs) if capture else None
    if tracer is not None:
        tracer.on_start(root_nodes, seeds, deps, roots, list(ready))

    gc_was_enabled = gc.isenabled()
    gc.disable()
    grad_mode_before = _grad_state.enabled
    _grad_state.enabled = False
    node = None
    _depth += 1
    try:
        while ready:
            node = ready.pop()
            grad = buffers.pop(node, None)
            skip = grad is None or (needed is not None and node not in needed)
            if skip:
                grads = ()
                if tracer is not None:
                    tracer.on_skip(node)
            else:
                if tracer is not None:
                    tracer.on_node(node, grad)
                if node._pre_hooks:
                    grad = _run_pre_hooks(node, grad)
                    if tracer is not None:
                        tracer.on_hooks(node, "pre", len(node._pre_hooks), grad)
                if targets is not None and node in targets:
                    if capture:
                        if isinstance(node, AccumulateGrad):
                            grad = node.run_hooks(grad)  # a leaf's hooks see its gradient, as in PyTorch
                        for i in targets[node]:
                            captured[i] = grad
                        if tracer is not None:
                            tracer.on_capture(node, targets[node], grad)
                    elif not isinstance(node, AccumulateGrad):
                        for i in targets[node]:
                            inputs[i]._accumulate_grad(grad)
                if isinstance(node, AccumulateGrad):
                    if not capture and (targets is None or node in targets):
                        node.apply(grad)
                        if tracer is not None:
                            tracer.on_accumulate(node, node.variable._meta.grad)
                    grads = ()
                else:
                    grads = node.apply(grad)
                    _check_gradients(node, grads)
                    if node._hooks:
                        for hook in node._hooks:
                            result = hook(grads, (grad,))
                            if result is not None:
                                grads = tuple(result)
                        if tracer is not None:
                            tracer.on_hooks(node, "post", len(node._hooks), grads)
            inputs_of_node = node.inputs
            for i, ni in enumerate(inputs_of_node):
                edge = ni.edge
                if edge is None:
                    continue
                g = grads[i] if i < len(grads) else None
                if g is not None:
                    buffers[edge] = buffers[edge] + g if edge in buffers else g
                before = deps[edge]
                deps[edge] = before - 1
                if before == 1:
                    ready.append(edge)
                if tracer is not None:
                    tracer.on_send(node, i, edge, g, buffers.get(edge), before, before - 1, before == 1)
            if not retain_graph and not skip and not isinstance(node, AccumulateGrad):
                node.release_variables()
            if tracer is not None:
                tracer.on_step_end(node, list(ready), not retain_graph and not skip)
        node = None
    except BaseException as exc:
        if tracer is not None:
            tracer.on_error(node, exc)
        raise
    finally:
        _depth -= 1
        _grad_state.enabled = grad_mode_before
        if gc_was_enabled:
            gc.enable()
        if tracer is not None:
            tracer.on_end()

    if capture:
        for i, g in enumerate(captured):
            if g is None and not allow_unused:
                raise RuntimeError(
                    f"One of the differentiated Tensors (input {i}) appears to not have been used "
                    "in the graph. Set allow_unused=True if this is the desired behavior."
                )
        return tuple(captured)
    return None
