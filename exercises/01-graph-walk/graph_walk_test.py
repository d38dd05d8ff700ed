"""Public tests of graph_walk: each test builds a small graph and returns what your functions
give, as plain data; the judge compares it with the expected value written below the test."""

import kael


def _names(nodes):
    return [n.name() for n in nodes]


def test_walk_mul_then_sum(m):
    """walk(y.grad_fn) for y = (x * w).sum(), the notebook's example"""
    x = kael.tensor([1.0, 2.0, 3.0], requires_grad=True)
    w = kael.tensor([0.5, -1.0, 2.0], requires_grad=True)
    y = (x * w).sum()
    return m.walk(y.grad_fn)


test_walk_mul_then_sum.expected = ["SumBackward", "  MulBackward", "    AccumulateGrad", "    AccumulateGrad"]


def test_walk_skips_constant(m):
    """walk(y.grad_fn) for y = (x * 2).exp(): the constant 2 has a None edge"""
    x = kael.tensor([1.0, 2.0], requires_grad=True)
    y = (x * 2).exp()
    return m.walk(y.grad_fn)


test_walk_skips_constant.expected = ["ExpBackward", "  MulBackward", "    AccumulateGrad"]


def test_walk_visits_shared_node_twice(m):
    """walk(y.grad_fn) for a = x * 2; y = a + a.exp(): a's node is reached along two paths"""
    x = kael.tensor([1.0], requires_grad=True)
    a = x * 2
    y = a + a.exp()
    return m.walk(y.grad_fn)


test_walk_visits_shared_node_twice.expected = [
    "AddBackward",
    "  MulBackward",
    "    AccumulateGrad",
    "  ExpBackward",
    "    MulBackward",
    "      AccumulateGrad",
]


def test_unique_nodes_of_diamond(m):
    """[n.name() for n in unique_nodes(y.grad_fn)] for the diamond y = (x * 2 + x * 3).sum()"""
    x = kael.tensor([1.0, 2.0], requires_grad=True)
    y = (x * 2 + x * 3).sum()
    return _names(m.unique_nodes(y.grad_fn))


test_unique_nodes_of_diamond.expected = ["SumBackward", "AddBackward", "MulBackward", "AccumulateGrad", "MulBackward"]


def test_leaf_tensors_in_order(m):
    """[t.tolist() for t in leaf_tensors(y.grad_fn)] for y = (x * w + b).sum()"""
    x = kael.tensor([1.0, 2.0], requires_grad=True)
    w = kael.tensor([3.0, 4.0], requires_grad=True)
    b = kael.tensor([5.0, 6.0], requires_grad=True)
    y = (x * w + b).sum()
    return [t.tolist() for t in m.leaf_tensors(y.grad_fn)]


test_leaf_tensors_in_order.expected = [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]


def test_leaf_tensors_are_the_leaves(m):
    """[t is x for t in leaf_tensors(y.grad_fn)] for y = (x * x).sum(): x once, and x itself"""
    x = kael.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    return [t is x for t in m.leaf_tensors(y.grad_fn)]


test_leaf_tensors_are_the_leaves.expected = [True]
