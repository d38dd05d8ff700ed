"""Step 2 of ADR 0005's engine: count, for every node reachable from the root, the edges that
point to it; then use the counts to order the nodes without sorting.

    node.inputs            a tuple of NodeInput, one per input of the operation
    node.inputs[i].edge    the node that receives input i's gradient, or None
"""

import kael


def count_dependencies(root):
    """``{node: number of edges pointing to it}`` for every node reachable from ``root``
    (``root`` included, with 0). An edge counts once per input: in ``x * x`` the MulBackward
    node has two edges to x's AccumulateGrad. No recursion."""
    raise NotImplementedError("implement count_dependencies(root): walk with a stack, count every edge")


def topological_order(root):
    """Every node reachable from ``root``, each once, each after every node that has an edge to
    it: start from ``root``; take a node from a stack of ready nodes, decrement the count of
    each node its edges point to, and push a node when its count reaches zero."""
    raise NotImplementedError("implement topological_order(root): Kahn's algorithm with the counts")
