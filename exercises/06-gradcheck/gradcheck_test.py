"""Public tests of gradcheck: your functions on small float64 inputs, and on Functions whose
backward is deliberately wrong (gradcheck must raise, naming the input and element)."""

import kael


def _leaf(values):
    return kael.tensor(values, dtype=kael.float64, requires_grad=True)


class WrongScale(kael.autograd.Function):
    """y = 2x, but backward claims 3g."""

    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        return g * 3


def test_reduction_weights(m):
    """reduction_weights(4, seed=0)"""
    return m.reduction_weights(4, seed=0)


test_reduction_weights.expected = [0.6888437033630908, -0.22950938437134027, 0.5159087982028723, 0.7804878363385797]


def test_numeric_gradient_of_cube(m):
    """numeric_gradient(lambda x: x ** 3, [x], 0, [1.0, 1.0]) at x = [1, 2]"""
    x = _leaf([1.0, 2.0])
    return m.numeric_gradient(lambda t: t ** 3, [x], 0, [1.0, 1.0])


test_numeric_gradient_of_cube.expected = [2.9999999995311555, 12.000000000789157]


def test_analytic_gradient_weighted(m):
    """analytic_gradient(lambda x: x * x, [x], 0, [1.0, -0.5]) at x = [3, 4]"""
    x = _leaf([3.0, 4.0])
    return m.analytic_gradient(lambda t: t * t, [x], 0, [1.0, -0.5])


test_analytic_gradient_weighted.expected = [6.0, -4.0]


def test_gradcheck_passes_for_kael_ops(m):
    """gradcheck(lambda a, b: (a * b).exp(), [a, b]) for float64 a, b of shape [2]"""
    return m.gradcheck(lambda a, b: (a * b).exp(), [_leaf([0.1, -0.3]), _leaf([0.5, 0.2])])


test_gradcheck_passes_for_kael_ops.expected = True


def test_gradcheck_catches_wrong_backward(m):
    """gradcheck(WrongScale.apply, [x]) raises GradcheckError naming input 0, element [0]"""
    return m.gradcheck(WrongScale.apply, [_leaf([1.0, 2.0])])


test_gradcheck_catches_wrong_backward.raises = ['gradcheck.GradcheckError', 'Jacobian mismatch for input 0 at element [0]: analytic 2.06653, numeric 1.37769']


def test_numeric_gradient_is_a_central_difference(m):
    """numeric_gradient(lambda x: x ** 3, [x], 0, [1.0], eps=0.01) at x = [2]: central, (L(x+e) -
    L(x-e)) / 2e = 12.0001 (a one-sided difference gives 12.0601)"""
    x = _leaf([2.0])
    return m.numeric_gradient(lambda t: t ** 3, [x], 0, [1.0], eps=0.01)


test_numeric_gradient_is_a_central_difference.expected = [12.000099999999847]


def test_numeric_gradient_puts_each_element_back(m):
    """after numeric_gradient(lambda x: x * x, [x], 0, [1.0, 1.0, 1.0], eps=0.1), x holds exactly
    [0.1, 0.2, 0.7] again, and x.grad is still None"""
    x = _leaf([0.1, 0.2, 0.7])
    m.numeric_gradient(lambda t: t * t, [x], 0, [1.0, 1.0, 1.0], eps=0.1)
    return [x.tolist(), x.tolist() == [0.1, 0.2, 0.7], x.grad is None]  # bit for bit, not within a tolerance


test_numeric_gradient_puts_each_element_back.expected = [[0.1, 0.2, 0.7], True, True]
