"""Public tests of multi_output: some tests use only some outputs (their nodes call your
backward with None for the others); some call your backward directly. The expected value is
written below."""

import kael


def test_only_the_second_piece_is_used(m):
    """split(x, (1, 2), 1) of a [2, 3] x, loss = (b * b).sum(): a's gradient is zero"""
    x = kael.arange(6.0).reshape(2, 3).requires_grad_()
    a, b = m.split(x, (1, 2), 1)
    (b * b).sum().backward()
    return x.grad.tolist()


test_only_the_second_piece_is_used.expected = [[0.0, 2.0, 4.0], [0.0, 8.0, 10.0]]


def test_split_backward_with_none(m):
    """Split.backward(ctx, None, g, None) for pieces of sizes (1, 2, 1) of a [4] x"""
    ctx = m.Ctx()
    m.Split.forward(ctx, kael.zeros(4), (1, 2, 1), 0)
    return m.Split.backward(ctx, None, kael.tensor([5.0, 6.0]), None).tolist()


test_split_backward_with_none.expected = [0.0, 5.0, 6.0, 0.0]


def test_split_backward_all_none(m):
    """Split.backward(ctx, None, None): no output got a gradient, so the input gets None"""
    ctx = m.Ctx()
    m.Split.forward(ctx, kael.zeros(3), (1, 2), 0)
    return m.Split.backward(ctx, None, None) is None


test_split_backward_all_none.expected = True


def test_only_the_variance_is_used(m):
    """mean_var(x, 1) of [[0, 1, 2], [3, 4, 8]], loss = var.sum(): 2 (x - mean) / 3"""
    x = kael.tensor([[0.0, 1.0, 2.0], [3.0, 4.0, 8.0]], requires_grad=True)
    mean, var = m.mean_var(x, 1)
    var.sum().backward()
    return [mean.tolist(), var.tolist(), x.grad.tolist()]


test_only_the_variance_is_used.expected = [[1.0, 5.0], [0.6666667, 4.666667], [[-0.6666667, 0.0, 0.6666667], [-1.333333, -0.6666667, 2.0]]]


def test_mean_var_backward_both(m):
    """MeanVar.backward(ctx, g_mean=[1], g_var=[1]) for x = [[1, 2, 6]] over dim 1"""
    ctx = m.Ctx()
    m.MeanVar.forward(ctx, kael.tensor([[1.0, 2.0, 6.0]]), 1)
    return m.MeanVar.backward(ctx, kael.tensor([1.0]), kael.tensor([1.0])).tolist()


test_mean_var_backward_both.expected = [[-1.0, -0.3333333, 2.333333]]
