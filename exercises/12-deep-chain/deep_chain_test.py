"""Public tests of deep_chain: each test builds a graph and returns what count_nodes and depth
give; the expected value is written below the test."""

import kael


def _chain(n):
    x = kael.tensor([1.0], requires_grad=True)
    y = x
    for _ in range(n):
        y = y * 1.0001
    return y


def test_small_chain(m):
    """count_nodes and depth of y.grad_fn for y = x * 1.0001 * 1.0001 * 1.0001 (three MulBackward + AccumulateGrad)"""
    y = _chain(3)
    return [m.count_nodes(y.grad_fn), m.depth(y.grad_fn)]


test_small_chain.expected = [4, 4]


def test_diamond(m):
    """y = (x * 2 + x * 3).sum(): 5 distinct nodes, longest path Sum -> Add -> Mul -> AccumulateGrad"""
    x = kael.tensor([1.0, 2.0], requires_grad=True)
    y = (x * 2 + x * 3).sum()
    return [m.count_nodes(y.grad_fn), m.depth(y.grad_fn)]


test_diamond.expected = [5, 4]


def test_short_and_long_path(m):
    """y = x + (x * 2).exp(): x's node is 2 steps away along one path and 3 along the other"""
    x = kael.tensor([1.0], requires_grad=True)
    y = x + (x * 2).exp()
    return [m.count_nodes(y.grad_fn), m.depth(y.grad_fn)]


test_short_and_long_path.expected = [4, 4]


def test_chain_deeper_than_recursion_limit(m):
    """a chain of 3,000 multiplications: beyond Python's recursion limit"""
    y = _chain(3000)
    return [m.count_nodes(y.grad_fn), m.depth(y.grad_fn)]


test_chain_deeper_than_recursion_limit.expected = [3001, 3001]


def test_longer_path_through_a_seen_node(m):
    """y = a.sin().sin().sin().sin().sin() + a with a = (x * 2).exp(): the walk may reach a (and the
    nodes below it) by the short path first; the longest path goes through the five sines"""
    x = kael.tensor([1.0], requires_grad=True)
    a = (x * 2).exp()
    z = a
    for _ in range(5):
        z = z.sin()
    y = z + a
    return [m.count_nodes(y.grad_fn), m.depth(y.grad_fn)]


test_longer_path_through_a_seen_node.expected = [9, 9]


def test_ladder_of_shared_rungs(m):
    """16 rungs of y = y * 2 + y * 3: 65,536 paths but only 49 distinct nodes (a walk that does
    not remember finished nodes takes seconds here; the hidden tests have ladders where it never ends)"""
    x = kael.tensor([1.0], requires_grad=True)
    y = x
    for _ in range(16):
        y = y * 2 + y * 3
    return [m.count_nodes(y.grad_fn), m.depth(y.grad_fn)]


test_ladder_of_shared_rungs.expected = [49, 33]
