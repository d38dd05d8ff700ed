"""Public tests of matmul_backward: each test multiplies with your MatMul, backpropagates
(y * w).sum() and returns the shapes and values of both gradients."""

import kael


def _t(values):
    return kael.tensor(values, dtype=kael.float64, requires_grad=True)


def _run(m, a, b):
    y = m.MatMul.apply(a, b)
    w = kael.arange(y.numel(), dtype=kael.float64).reshape(y.shape) + 1
    y.backward(w)  # the gradient of (y * w).sum()
    return [y.tolist(), list(a.grad.shape), a.grad.tolist(), list(b.grad.shape), b.grad.tolist()]


def test_matrix_matrix(m):
    """MatMul.apply(a, b) for a of shape [2, 3] and b of shape [3, 2]"""
    return _run(m, _t([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]), _t([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]))


test_matrix_matrix.expected = [[[4.0, 5.0], [10.0, 11.0]], [2, 3], [[1.0, 2.0, 3.0], [3.0, 4.0, 7.0]], [3, 2], [[13.0, 18.0], [17.0, 24.0], [21.0, 30.0]]]


def test_matrix_vector(m):
    """MatMul.apply(a, v) for a of shape [2, 3] and a vector v of shape [3]"""
    return _run(m, _t([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]), _t([1.0, -1.0, 2.0]))


test_matrix_vector.expected = [[5.0, 11.0], [2, 3], [[1.0, -1.0, 2.0], [2.0, -2.0, 4.0]], [3], [9.0, 12.0, 15.0]]


def test_vector_matrix(m):
    """MatMul.apply(v, b) for a vector v of shape [3] and b of shape [3, 2]"""
    return _run(m, _t([1.0, -1.0, 2.0]), _t([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]))


test_vector_matrix.expected = [[3.0, 1.0], [3], [1.0, 2.0, 3.0], [3, 2], [[1.0, 2.0], [-1.0, -2.0], [2.0, 4.0]]]


def test_vector_vector(m):
    """MatMul.apply(u, v) for two vectors of shape [3]: a 0-d dot product"""
    return _run(m, _t([1.0, 2.0, 3.0]), _t([4.0, 5.0, 6.0]))


test_vector_vector.expected = [32.0, [3], [4.0, 5.0, 6.0], [3], [1.0, 2.0, 3.0]]


def test_batch_times_matrix(m):
    """MatMul.apply(x, w) for a batch x of shape [2, 2, 3] and a shared w of shape [3, 1]"""
    x = _t([[[1.0, 2.0, 3.0], [0.0, 1.0, 0.0]], [[2.0, 0.0, 1.0], [1.0, 1.0, 1.0]]])
    return _run(m, x, _t([[1.0], [2.0], [3.0]]))


test_batch_times_matrix.expected = [[[[14.0], [2.0]], [[5.0], [6.0]]], [2, 2, 3], [[[1.0, 2.0, 3.0], [2.0, 4.0, 6.0]], [[3.0, 6.0, 9.0], [4.0, 8.0, 12.0]]], [3, 1], [[11.0], [8.0], [10.0]]]
