"""Public tests of layernorm: each test normalizes a small input with your Function, runs
backward and returns values and gradients as lists; the expected value is written below."""

import kael

ATOL = 1e-5


def _run(m, rows, w, b, upstream=None, dtype=kael.float64):
    x = kael.tensor(rows, dtype=dtype, requires_grad=True)
    weight = kael.tensor(w, dtype=dtype, requires_grad=True)
    bias = kael.tensor(b, dtype=dtype, requires_grad=True)
    y = m.layer_norm(x, weight, bias)
    (y * (upstream if upstream is not None else 1.0)).sum().backward()
    return [y.tolist(), x.grad.tolist(), weight.grad.tolist(), bias.grad.tolist()]


def test_forward_and_grads(m):
    """layer_norm of [[1, 2, 4], [0, 0, 3]] with weight [1, 2, 3], bias [0, 0, 1], upstream 1..6"""
    up = kael.arange(1.0, 7.0, dtype=kael.float64).reshape(2, 3)
    return _run(m, [[1.0, 2.0, 4.0], [0.0, 0.0, 3.0]], [1.0, 2.0, 3.0], [0.0, 0.0, 1.0], up)


test_forward_and_grads.expected = [[[-1.069042, -0.5345208, 5.008906], [-0.707105, -1.41421, 5.24263]], [[-0.1145583, 0.1718057, -0.05724738], [-2.121328, 2.121302, 2.592705e-05]], [-3.897462, -4.070046, 12.49417], [5.0, 7.0, 9.0]]


def test_sum_of_output_gives_zero_input_grad(m):
    """with weight 1, the gradient of y.sum() with respect to x is 0 (the mean is removed)"""
    return _run(m, [[3.0, -1.0, 2.0, 0.5]], [1.0, 1.0, 1.0, 1.0], [0.0, 0.0, 0.0, 0.0])[1]


test_sum_of_output_gives_zero_input_grad.expected = [[2.265751e-17, -2.567852e-17, 1.057351e-17, -7.552505e-18]]


def test_gradcheck_float64(m):
    """kael.autograd.gradcheck on float64 x [2, 3], weight [3], bias [3]"""
    kael.manual_seed(0)
    x = kael.randn(2, 3, dtype=kael.float64, requires_grad=True)
    w = kael.randn(3, dtype=kael.float64, requires_grad=True)
    b = kael.randn(3, dtype=kael.float64, requires_grad=True)
    return kael.autograd.gradcheck(lambda *a: m.layer_norm(*a), (x, w, b), raise_exception=False)


test_gradcheck_float64.expected = True


def test_eps_argument_gets_no_gradient(m):
    """backward returns four gradients, None for eps"""
    x = kael.tensor([[1.0, 2.0]], requires_grad=True)
    y = m.layer_norm(x, kael.ones(2, requires_grad=True), kael.zeros(2, requires_grad=True))
    grads = y.grad_fn.function.backward(y.grad_fn, kael.ones(1, 2))
    return [len(grads), grads[3] is None]


test_eps_argument_gets_no_gradient.expected = [4, True]



def test_float32_rows_far_from_zero(m):
    """layer_norm in float32 of a row 1000 + [0.5, -1.25, 0.75, 0, -0.5, 1.5, -1, 0.25] (weight 1,
    bias 0): the variance of the centered values, not E[x^2] - E[x]^2, which cancels in float32"""
    x = kael.tensor([[1000.5, 998.75, 1000.75, 1000.0, 999.5, 1001.5, 999.0, 1000.25]])
    return m.layer_norm(x, kael.ones(8), kael.zeros(8)).tolist()


test_float32_rows_far_from_zero.expected = [[0.544462, -1.4882, 0.834841, -0.0362975, -0.617057, 1.70598, -1.19782, 0.254082]]
test_float32_rows_far_from_zero.atol = 1e-4


def test_batch_dims_sum_into_weight_and_bias(m):
    """x of shape [2, 2, 3] (two batch dims), weight [1, 2, 3], bias [0, 0, 1], upstream 1..12:
    weight.grad and bias.grad have shape [3], summed over all four rows"""
    up = kael.arange(1.0, 13.0, dtype=kael.float64).reshape(2, 2, 3)
    rows = [[[1.0, 2.0, 4.0], [0.0, 0.0, 3.0]], [[-1.0, 0.5, 0.0], [2.0, 2.0, -2.0]]]
    return _run(m, rows, [1.0, 2.0, 3.0], [0.0, 0.0, 1.0], up)[2:]


test_batch_dims_sum_into_weight_and_bias.expected = [[-6.18043, 12.2604, -2.07105], [22.0, 26.0, 30.0]]
