"""Write kael's backward engine yourself, with the node API (ADR 0005: seed, count, process).

    root.grad_fn                      the node that produced ``root``
    node.inputs                       a tuple of NodeInput, one per input of the operation:
        .edge                         the node that receives that input's gradient (or None)
        .shape, .dtype                the shape and dtype that gradient must have
    node.apply(grad)                  a tuple of gradients, one per input (None = no gradient)
    isinstance(node, kael.autograd.AccumulateGrad)
    node.variable                     the leaf tensor of an AccumulateGrad node
"""

import kael


def sum_to(g, shape):
    """Sum ``g`` down to ``shape`` (undo a broadcast): exercise 03, or use ``kael.ops.sum_to``."""
    raise NotImplementedError("implement sum_to(g, shape): sum the leading dims, then keep-dim sums")


def backward(root, gradient=None):
    """Accumulate d(root)/d(leaf) into ``leaf.grad`` for every leaf that ``root`` depends on.

    1. Seed: with ``gradient=None`` a one-element ``root`` gets ``kael.ones_like(root)``; any
       other root raises ``RuntimeError("grad can be implicitly created only for scalar outputs")``.
    2. Count, for every node reachable from ``root.grad_fn``, the edges that point to it.
    3. Process with a stack of ready nodes: a node runs once, when all its contributions have
       been added into its buffer; sum each returned gradient to ``NodeInput.shape``; a leaf's
       AccumulateGrad adds into ``leaf.grad`` (a copy of the first gradient, then sums).
    No recursion (a 5,000-node chain must work), and no gradient history (run under no_grad)."""
    raise NotImplementedError("implement backward(root, gradient=None): seed, count, process")
