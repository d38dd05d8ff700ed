"""Public tests of nonsmooth: each test runs your Function at a tie or a kink, runs backward and
returns the gradient as a list; the expected value is written below."""

import kael


def _grad(fn, rows):
    x = kael.tensor(rows, requires_grad=True)
    y = fn(x)
    y = y[0] if isinstance(y, tuple) else y
    y.sum().backward()
    return x.grad.tolist()


def test_amax_shares_ties(m):
    """amax(x, 1) of [[1, 3, 3], [2, 2, 2]]: tied maxima share the gradient evenly"""
    return _grad(lambda x: m.amax(x, 1), [[1.0, 3.0, 3.0], [2.0, 2.0, 2.0]])


test_amax_shares_ties.expected = [[0.0, 0.5, 0.5], [0.3333333, 0.3333333, 0.3333333]]


def test_max_dim_picks_the_first(m):
    """max_dim(x, 1) of [[1, 3, 3], [2, 2, 0]]: values, indices, and the gradient at the argmax only"""
    x = kael.tensor([[1.0, 3.0, 3.0], [2.0, 2.0, 0.0]], requires_grad=True)
    values, indices = m.max_dim(x, 1)
    values.sum().backward()
    return [values.tolist(), indices.tolist(), indices.dtype.name, x.grad.tolist()]


test_max_dim_picks_the_first.expected = [[3.0, 2.0], [1, 0], 'int64', [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]]]


def test_relu_at_zero(m):
    """relu at [-1, 0, 2]: the gradient at 0 is 0"""
    return _grad(m.relu, [-1.0, 0.0, 2.0])


test_relu_at_zero.expected = [0.0, 0.0, 1.0]


def test_abs_at_zero(m):
    """abs at [-1, 0, 2]: the gradient at 0 is 0"""
    return _grad(m.abs, [-1.0, 0.0, 2.0])


test_abs_at_zero.expected = [-1.0, 0.0, 1.0]


def test_safe_sqrt_has_no_nan(m):
    """safe_sqrt at [-4, 0, 4]: value [0, 0, 2] and gradient [0, 0, 0.25], no NaN"""
    x = kael.tensor([-4.0, 0.0, 4.0], requires_grad=True)
    y = m.safe_sqrt(x)
    y.sum().backward()
    return [y.tolist(), x.grad.tolist()]


test_safe_sqrt_has_no_nan.expected = [[0.0, 0.0, 2.0], [0.0, 0.0, 0.25]]
