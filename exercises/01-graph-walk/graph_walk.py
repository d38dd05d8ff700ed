"""Walk the backward graph that kael records during the forward pass.

Every node has ``node.name()`` (``"MulBackward"``, ``"AccumulateGrad"``, ...) and
``node.next_functions``: a tuple of ``(next_node, 0)`` pairs, one per input, where
``next_node`` is ``None`` for an input that needs no gradient. A leaf's node is a
``kael.autograd.AccumulateGrad`` and its tensor is ``node.variable``.
"""

import kael


def walk(fn):
    """The tree view of the graph below ``fn``, one string per visit, as the notebook prints it.

    Depth first, children in ``next_functions`` order, two spaces of indentation per level,
    ``None`` edges skipped; a node reached along two paths appears twice."""
    raise NotImplementedError("implement walk(fn): return ['SumBackward', '  MulBackward', ...]")


def unique_nodes(fn):
    """Every node reachable from ``fn`` (``fn`` included), each exactly once, in the order a
    depth-first walk first reaches them (children in ``next_functions`` order)."""
    raise NotImplementedError("implement unique_nodes(fn): each reachable node once, depth-first order")


def leaf_tensors(fn):
    """The leaf tensors below ``fn`` (the ``.variable`` of each AccumulateGrad node), each once,
    in the order ``unique_nodes`` reaches their nodes."""
    raise NotImplementedError("implement leaf_tensors(fn): the .variable of every AccumulateGrad, once each")
