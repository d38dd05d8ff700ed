"""Public tests of broadcast_ops: each test applies your Function to operands of different
shapes, backpropagates, and returns [shape of each gradient, the gradients]."""

import kael


def _leaf(values):
    return kael.tensor(values, dtype=kael.float64, requires_grad=True)


def _run(fn, a, b):
    y = fn(a, b)
    w = kael.arange(y.numel(), dtype=kael.float64).reshape(y.shape) + 1
    y.backward(w)  # the gradient of (y * w).sum()
    return [list(a.grad.shape), a.grad.tolist(), list(b.grad.shape), b.grad.tolist()]


def test_sum_to_rows(m):
    """sum_to(g, (1, 3)) for g = [[1, 2, 3], [4, 5, 6]]"""
    return m.sum_to(kael.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]), (1, 3)).tolist()


test_sum_to_rows.expected = [[5.0, 7.0, 9.0]]


def test_add_bias(m):
    """Add.apply(x, b) with x of shape [2, 3] and a bias b of shape [3]"""
    return _run(m.Add.apply, _leaf([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]), _leaf([0.5, -0.5, 1.0]))


test_add_bias.expected = [[2, 3], [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], [3], [5.0, 7.0, 9.0]]


def test_sub_column(m):
    """Sub.apply(x, c) with x of shape [2, 3] and a column c of shape [2, 1]"""
    return _run(m.Sub.apply, _leaf([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]), _leaf([[1.0], [2.0]]))


test_sub_column.expected = [[2, 3], [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], [2, 1], [[-6.0], [-15.0]]]


def test_mul_scale(m):
    """Mul.apply(x, s) with x of shape [2, 2] and a 0-d scale s = 3"""
    return _run(m.Mul.apply, _leaf([[1.0, 2.0], [3.0, 4.0]]), _leaf(3.0))


test_mul_scale.expected = [[2, 2], [[3.0, 6.0], [9.0, 12.0]], [], 30.0]


def test_div_row_by_column(m):
    """Div.apply(r, c) with a row r of shape [1, 2] and a column c of shape [2, 1]"""
    return _run(m.Div.apply, _leaf([[1.0, 2.0]]), _leaf([[1.0], [4.0]]))


test_div_row_by_column.expected = [[1, 2], [[1.75, 3.0]], [2, 1], [[-5.0], [-0.6875]]]
