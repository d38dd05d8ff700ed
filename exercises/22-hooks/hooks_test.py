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


def test_clip_leaves_small_gradients_and_its_handle_removes_it(m):
    """clip_gradient(h, 10.0) on h = x * 2 whose gradient is [3, 4] (norm 5 < 10): unchanged; then
    handle.remove() and clip_gradient(h, 1.0) is gone too after its own remove()"""
    x = kael.tensor([1.0, 1.0], requires_grad=True)
    h = x * 2
    m.clip_gradient(h, 10.0).remove()
    m.clip_gradient(h, 10.0)
    (h * kael.tensor([3.0, 4.0])).sum().backward(retain_graph=True)
    first = x.grad.tolist()
    x.grad = None
    m.clip_gradient(h, 1.0).remove()
    (h * kael.tensor([3.0, 4.0])).sum().backward()
    return [first, x.grad.tolist()]


test_clip_leaves_small_gradients_and_its_handle_removes_it.expected = [[6.0, 8.0], [6.0, 8.0]]


def test_clip_keeps_the_callers_gradient(m):
    """clip_gradient(y, 1.0) on y = x * 2, then y.backward(G) with G = [3, 4]: x.grad is 2 * [0.6, 0.8]
    and the caller's G still holds [3, 4] (the hook returns a new tensor)"""
    x = kael.tensor([1.0, 1.0], requires_grad=True)
    y = x * 2
    m.clip_gradient(y, 1.0)
    G = kael.tensor([3.0, 4.0])
    y.backward(G)
    return [x.grad.tolist(), G.tolist()]


test_clip_keeps_the_callers_gradient.expected = [[1.2, 1.6], [3.0, 4.0]]


def test_record_gradients_leaves_no_hook(m):
    """record_gradients({'x': x}, (x * x).sum()), then a second backward of (x * 5).sum(): the
    returned dict still holds the first gradient (no hook of record_gradients runs again)"""
    x = kael.tensor([1.0, 2.0], requires_grad=True)
    seen = m.record_gradients({"x": x}, (x * x).sum())
    (x * 5).sum().backward()
    return [seen, x.grad.tolist()]


test_record_gradients_leaves_no_hook.expected = [{'x': [2.0, 4.0]}, [7.0, 9.0]]
