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
