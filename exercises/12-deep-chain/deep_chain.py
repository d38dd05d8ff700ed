"""Walk a backward graph that is far deeper than Python's recursion limit (about 1,000 frames).

    node.next_functions    ((next_node, 0), ...): one pair per input; next_node None = no edge
    node.name()            "MulBackward", "AccumulateGrad", ...
"""


def count_nodes(fn):
    """How many distinct nodes are reachable from ``fn`` (``fn`` included). No recursion."""
    raise NotImplementedError("implement count_nodes(fn) with a stack and a seen set")


def depth(fn):
    """The number of nodes on the longest path from ``fn`` down to a node without children
    (``fn`` and that node included). No recursion."""
    raise NotImplementedError("implement depth(fn): longest path, post-order with an explicit stack")
