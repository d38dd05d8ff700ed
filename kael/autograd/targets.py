"""What a backward pass differentiates toward: every leaf, or the ``inputs`` it was given.

``backward(inputs=...)`` and ``autograd.grad`` restrict the pass to the nodes that lead to their
inputs; ``Targets`` holds that restriction and what ``grad`` captures. A plain ``backward`` uses
``ALL_NODES``, whose answers never restrict anything.
"""

from __future__ import annotations

from .node import AccumulateGrad

__all__ = ["gradient_edge", "Targets", "ALL_NODES"]


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

    Only the ``needed`` nodes, which lead to a target, run. ``backward`` accumulates into the targets'
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
                if t.requires_grad:
                    continue  # a view made under no_grad: no node receives its gradient (PyTorch)
                raise RuntimeError(f"element {i} of the inputs does not require grad and does not have a grad_fn")
            self.nodes.setdefault(node, []).append(i)
            if not capture and not isinstance(node, AccumulateGrad):
                t.retain_grad()
        self.needed = needed = _needed(root_nodes, self.nodes)
        # nodes that pass gradients on toward a target; a target's own node runs only if so
        self.through = {n for n in needed if any(ni.edge in needed for ni in n.inputs if ni.edge is not None)}
        self.captured = [None] * len(inputs) if capture else None

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
                    f"The differentiated Tensor at index {i} appears to not have been used in the "
                    "graph. Set allow_unused=True if this is the desired behavior."
                )
        return tuple(self.captured)


class _AllNodes:
    """The targets of a plain ``backward``: every node runs (``needed`` is None), no node is a
    target, every leaf accumulates."""

    __slots__ = ()
    capture = False
    needed = None
    nodes = frozenset()

    @staticmethod
    def accumulates(node):
        return True


ALL_NODES = _AllNodes()
