"""The outputs of a user's ``Function`` that returns a tuple, as PyTorch treats them.

``backward(ctx, *grads)`` takes one gradient per output (``None`` for an output that is not a
tensor or not floating point; for a floating output no gradient reached, zeros, or ``None``
after ``ctx.set_materialize_grads(False)``).

With one floating output, that output's ``grad_fn`` is the node. With several, kael's engine
(one gradient per node) gets them to the node through one small ``OutputGrad`` node per output:
each places its output's gradient in its segment of one flat vector, the engine sums the
vectors in the node's buffer, and the node cuts them apart again (README: deviations).
"""

from __future__ import annotations

from .. import dtype as dt
from .node import FunctionNode, NodeInput

__all__ = ["Outputs", "OutputGrad", "record_outputs"]


class Outputs:
    """Where a node's outputs sit in the forward's tuple, and which got a gradient."""

    __slots__ = ("count", "floating", "shapes", "dtypes", "offsets", "flat_dtype", "received")

    def __init__(self, outs, floating):
        self.count = len(outs)
        self.floating = floating  # positions of the floating tensors that carry history
        self.shapes = [tuple(outs[i].shape) for i in floating]
        self.dtypes = [outs[i].dtype for i in floating]
        sizes = [outs[i].numel() for i in floating]
        self.offsets = [sum(sizes[:k]) for k in range(len(sizes) + 1)]
        same = all(d is self.dtypes[0] for d in self.dtypes)
        self.flat_dtype = self.dtypes[0] if same else dt.float64
        self.received = set()

    def grads(self, grad, materialize):
        """One gradient per output, from the node's incoming gradient."""
        result = [None] * self.count
        many = len(self.floating) > 1
        for k, pos in enumerate(self.floating):
            if many:
                if not materialize and k not in self.received:
                    continue
                g = grad[self.offsets[k]:self.offsets[k + 1]].reshape(self.shapes[k]).to(self.dtypes[k])
            else:
                g = grad
            result[pos] = g
        self.received = set()
        return result


class OutputGrad(FunctionNode):
    """The ``grad_fn`` of output ``k`` of a node with several: its gradient, placed in its
    segment of the node's flat gradient. Named like the node it feeds."""

    __slots__ = ()

    def name(self):
        return self.inputs[0].edge.name() if self.inputs else "OutputGrad"

    def apply(self, grad):
        node, k = self._target
        layout = node._outputs
        layout.received.add(k)
        total = layout.offsets[-1]
        flat = grad.new_zeros((total,), dtype=layout.flat_dtype)
        flat[layout.offsets[k]:layout.offsets[k + 1]] = grad.reshape(-1)
        return (flat,)


def record_outputs(node, outs, Tensor):
    """Give the floating outputs of a tuple result their history through ``node``."""
    floating = [i for i, o in enumerate(outs) if isinstance(o, Tensor) and o.dtype.is_floating_point]
    layout = node._outputs = Outputs(outs, floating)
    if len(floating) == 1:
        outs[floating[0]]._set_history(node)
        return
    edge = NodeInput(node, (layout.offsets[-1],), layout.flat_dtype)
    for k, pos in enumerate(floating):
        proxy = OutputGrad((edge,), (True,))
        proxy._target = (node, k)
        outs[pos]._set_history(proxy)
