"""Public tests of hooks: each test builds a small graph, lets your function hook into its
backward, and returns what it saw; the expected value is written below."""

import kael


def test_record_leaf_and_intermediate(m):
    """record_gradients({'x': x, 'h': h}, loss) for h = x * 3, loss = (h * h).sum(), x = [1, 2]"""
    x = kael.tensor([1.0, 2.0], requires_grad=True)
    h = x * 3
    seen = m.record_gradients({"x": x, "h": h}, (h * h).sum())
    return [seen, x.grad.tolist()]


test_record_leaf_and_intermediate.expected = [{'h': [6.0, 12.0], 'x': [18.0, 36.0]}, [18.0, 36.0]]


def test_clip_gradient(m):
    """clip_gradient(h, 1.0) on h = x * 2 whose gradient is [3, 4] (norm 5): x.grad = 2 * [0.6, 0.8]"""
    x = kael.tensor([1.0, 1.0], requires_grad=True)
    h = x * 2
    m.clip_gradient(h, 1.0)
    (h * kael.tensor([3.0, 4.0])).sum().backward()
    return x.grad.tolist()


test_clip_gradient.expected = [1.2, 1.6]


def test_execution_order_of_the_diamond(m):
    """execution_order((x * 2 + x * 3).sum()): ADR 0005's diamond"""
    x = kael.tensor([1.0, 2.0], requires_grad=True)
    return m.execution_order((x * 2 + x * 3).sum())


test_execution_order_of_the_diamond.expected = ['SumBackward', 'AddBackward', 'MulBackward', 'MulBackward', 'AccumulateGrad']


def test_backward_twice(m):
    """backward_twice(x) for x = [0, 1]: the gradient accumulates, then the graph is freed"""
    return m.backward_twice(kael.tensor([0.0, 1.0], requires_grad=True))


test_backward_twice.expected = [[1.0, 5.436564], [2.0, 10.87313], True]


def test_hidden_gradient(m):
    """hidden_gradient(x, w) for x = [[1, -1]], w = [[1, 2], [3, -4]]"""
    x = kael.tensor([[1.0, -1.0]], requires_grad=True)
    w = kael.tensor([[1.0, 2.0], [3.0, -4.0]], requires_grad=True)
    return m.hidden_gradient(x, w)


test_hidden_gradient.expected = [[[0.0, 12.0]], [[24.0, -48.0]]]
