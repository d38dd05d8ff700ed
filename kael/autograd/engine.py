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
steps; when none is installed the engine talks to ``NO_TRACER``, whose hooks do nothing.
``backward(inputs=...)`` and ``autograd.grad`` restrict the pass to the nodes that lead to their
inputs; a ``Targets`` object holds that restriction and what ``grad`` captures.
"""

from __future__ import annotations

import gc

from ..backend import get_backend
from .grad_mode import state as _grad_state
from .hooks import run_node_hooks, run_pre_hooks
from .node import AccumulateGrad
from .source import here
from .source import state as _source

__all__ = ["run_backward", "gradient_edge", "set_tracer", "count_dependencies", "NoTracer", "Targets"]

_B = get_backend()
_Tensor = None  # kael.tensor.Tensor, bound on first use (kael.tensor imports this package)
_tracer = None  # the installed tracer (kael.viz.trace), or None
_depth = 0  # nested backward passes (a checkpoint recomputing in backward) are not traced


class NoTracer:
    """The tracer of a pass nobody watches: every hook of the protocol is a no-op.

    The protocol, in the order the engine calls it (``kael.viz.Trace`` implements it):
    ``on_start(root_nodes, seeds, deps, roots, ready)``, then per popped node ``on_skip(node)``
    or ``on_node(node, grad)`` [``on_hooks(node, "pre", n, grad)``] [``on_capture(node,
    input_indices, grad)``] [``on_accumulate(node, leaf_grad)``] [``on_hooks(node, "post", n,
    grads)``], ``on_send(node, input_nr, target, grad, buffer_after, count_before, count_after,
    became_ready)`` per non-null edge, ``on_step_end(node, ready, released)``; ``on_error(node,
    exc)`` if the pass fails; ``on_end()`` always.
    """

    __slots__ = ()

    def on_start(self, root_nodes, seeds, deps, roots, ready):
        pass

    def on_node(self, node, grad):
        pass

    def on_skip(self, node):
        pass

    def on_hooks(self, node, kind, n, result):
        pass

    def on_capture(self, node, input_indices, grad):
        pass

    def on_accumulate(self, node, grad):
        pass

    def on_send(self, node, input_nr, target, grad, buffer_after, count_before, count_after, became_ready):
        pass

    def on_step_end(self, node, ready, released):
        pass

    def on_error(self, node, exc):
        pass

    def on_end(self):
        pass


NO_TRACER = NoTracer()


def set_tracer(tracer):
    """Install ``tracer`` (or ``None``); returns the previous one. See ``NoTracer`` for the
    protocol a tracer implements."""
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


class Targets:
    """The ``inputs`` of ``backward(inputs=...)`` or, with ``capture``, of ``autograd.grad``.

    Only nodes that lead to a target run (``skips``). ``backward`` accumulates into the targets'
    ``.grad``: a leaf through its AccumulateGrad, a non-leaf by retaining its grad, as PyTorch
    does. ``grad`` captures the gradient arriving at each target and leaves ``.grad`` alone.
    """

    __slots__ = ("inputs", "capture", "nodes", "needed", "through", "captured")

    def __init__(self, inputs, capture, root_nodes):
        self.inputs = inputs
        self.capture = capture
        self.nodes = {}
        for i, t in enumerate(inputs):
            node = gradient_edge(t)
            if node is None:
                raise RuntimeError(f"element {i} of the inputs does not require grad and does not have a grad_fn")
            self.nodes.setdefault(node, []).append(i)
            if not capture and not isinstance(node, AccumulateGrad):
                t.retain_grad()
        self.needed = needed = _needed(root_nodes, self.nodes)
        # nodes that pass gradients on toward a target; a target's own node runs only if so
        self.through = {n for n in needed if any(ni.edge in needed for ni in n.inputs if ni.edge is not None)}
        self.captured = [None] * len(inputs) if capture else None

    def skips(self, node) -> bool:
        return node not in self.needed

    def accumulates(self, node) -> bool:
        """Whether a leaf's AccumulateGrad adds into ``.grad`` in this pass."""
        return not self.capture and node in self.nodes

    def take(self, node, grad, tracer):
        """Capture ``grad`` for the targets at ``node`` (a leaf's hooks see it first); returns
        the gradient the node itself then uses, or None when the node need not run (a target
        whose node leads to no other target, as in PyTorch)."""
        if node in self.nodes:
            if self.capture:
                if type(node) is AccumulateGrad:
                    grad = node.run_hooks(grad)  # a leaf's hooks see its gradient, as in PyTorch
                indices = self.nodes[node]
                for i in indices:
                    self.captured[i] = grad
                tracer.on_capture(node, indices, grad)
            if self.capture and node not in self.through and type(node) is not AccumulateGrad:
                return None  # autograd.grad stops at a target; backward(inputs=) runs its node
        return grad

    def result(self, allow_unused):
        for i, g in enumerate(self.captured):
            if g is None and not allow_unused:
                raise RuntimeError(
                    f"One of the differentiated Tensors (input {i}) appears to not have been used "
                    "in the graph. Set allow_unused=True if this is the desired behavior."
                )
        return tuple(self.captured)


class _AllNodes:
    """The targets of a plain ``backward``: every node runs, every leaf accumulates."""

    __slots__ = ()
    capture = False

    @staticmethod
    def skips(node):
        return False

    @staticmethod
    def accumulates(node):
        return True

    @staticmethod
    def take(node, grad, tracer):
        return grad


_ALL_NODES = _AllNodes()


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


def _apply(node, grad, targets, tracer):
    """Run one node on its complete gradient: pre-hooks, capture, the node, post-hooks.
    Returns the gradients for its inputs (none for a leaf's AccumulateGrad)."""
    tracer.on_node(node, grad)
    if node._pre_hooks:
        grad = run_pre_hooks(node, grad)
        tracer.on_hooks(node, "pre", len(node._pre_hooks), grad)
    grad = targets.take(node, grad, tracer)
    if grad is None:
        return ()
    if type(node) is AccumulateGrad:
        if targets.accumulates(node):
            node.apply(grad)
            tracer.on_accumulate(node, node.variable._meta.grad)
        return ()
    grads = node.apply(grad)
    _check_gradients(node, grads)
    if node._hooks:
        grads = run_node_hooks(node, grads, grad)
        tracer.on_hooks(node, "post", len(node._hooks), grads)
    return grads


def _send(node, grads, buffers, deps, ready, tracer):
    """Add each returned gradient into its target's buffer and count the edge as done; a
    target whose count reaches zero becomes ready."""
    for i, ni in enumerate(node.inputs):
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
        tracer.on_send(node, i, edge, g, buffers.get(edge), before, before - 1, before == 1)


def _process(ready, buffers, deps, targets, retain_graph, tracer):
    """Step 3: pop a ready node, apply it, send its gradients, release it."""
    node = None
    where = here() if _source.enabled else None  # the backward call, for the second-backward error
    try:
        while ready:
            node = ready.pop()
            grad = buffers.pop(node, None)
            skip = grad is None or targets.skips(node)
            if skip:
                tracer.on_skip(node)
                grads = ()
            else:
                grads = _apply(node, grad, targets, tracer)
            _send(node, grads, buffers, deps, ready, tracer)
            released = not retain_graph and not skip
            if released and type(node) is not AccumulateGrad:
                node.release_variables(where)
            tracer.on_step_end(node, list(ready) if tracer is not NO_TRACER else None, released)
    except BaseException as exc:
        tracer.on_error(node, exc)
        raise


def run_backward(roots, grad_roots, retain_graph=False, inputs=None, capture=False, allow_unused=False):
    """Backpropagate from ``roots``.

    ``inputs``: tensors to accumulate into (``backward(inputs=...)``) or, with ``capture``, to
    return gradients for without touching ``.grad`` (``autograd.grad``).
    """
    global _depth, _Tensor
    if _Tensor is None:
        from ..tensor import Tensor

        _Tensor = Tensor
    tracer = _tracer if _tracer is not None and _depth == 0 else NO_TRACER
    root_nodes, seeds = _seed(roots, grad_roots)
    targets = Targets(inputs, capture, root_nodes) if inputs is not None else _ALL_NODES
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
