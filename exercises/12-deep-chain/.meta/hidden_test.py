"""Hidden tests of deep_chain."""

import kael

_built = {}


def _long_chain():
    """The 50,000-node chain of ADR 0005 (built once per run, shared by the cases below)."""
    if "y" not in _built:
        x = kael.tensor([1.0], requires_grad=True)
        y = x
        for _ in range(50_000):
            y = y * 1.0001
        _built["y"] = y
    return _built["y"]


def test_count_nodes_50000_chain(m):
    """count_nodes on a chain of 50,000 multiplications"""
    return m.count_nodes(_long_chain().grad_fn)


def test_depth_50000_chain(m):
    """depth on a chain of 50,000 multiplications"""
    return m.depth(_long_chain().grad_fn)


def test_ladder_counts_nodes_once(m):
    """12 rungs of y = y * 2 + y * 3: 4,096 paths, 37 distinct nodes"""
    x = kael.tensor([1.0], requires_grad=True)
    y = x
    for _ in range(12):
        y = y * 2 + y * 3
    return [m.count_nodes(y.grad_fn), m.depth(y.grad_fn)]


def test_longest_not_first_reached(m):
    """y = x.exp() + deep(x), deep = 20 sines: depth follows the long branch"""
    x = kael.tensor([0.5], requires_grad=True)
    z = x
    for _ in range(20):
        z = z.sin()
    y = x.exp() + z
    return [m.count_nodes(y.grad_fn), m.depth(y.grad_fn)]


def test_long_branch_first(m):
    """y = deep(x) + x.exp(): the same graph with the branches swapped"""
    x = kael.tensor([0.5], requires_grad=True)
    z = x
    for _ in range(20):
        z = z.sin()
    y = z + x.exp()
    return [m.count_nodes(y.grad_fn), m.depth(y.grad_fn)]


def test_constants_have_no_edge(m):
    """y = (x * 2 + 1).sum() with constants: None edges are not nodes"""
    x = kael.tensor([1.0, 2.0], requires_grad=True)
    y = (x * 2 + 1).sum()
    return [m.count_nodes(y.grad_fn), m.depth(y.grad_fn)]


def test_leaf_node_alone(m):
    """for an AccumulateGrad node itself: 1 node, depth 1"""
    x = kael.tensor([1.0], requires_grad=True)
    node = (x * 2).grad_fn.next_functions[0][0]
    return [m.count_nodes(node), m.depth(node)]


def test_deep_diamonds(m):
    """2,000 steps of y = y.sin() + y.cos(): deep and shared"""
    x = kael.tensor([0.1], dtype=kael.float64, requires_grad=True)
    y = x
    for _ in range(2000):
        y = y.sin() + y.cos()
    return [m.count_nodes(y.grad_fn), m.depth(y.grad_fn)]
