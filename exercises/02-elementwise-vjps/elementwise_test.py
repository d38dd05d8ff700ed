"""Public tests of elementwise: each test applies one of your Functions, backpropagates a
gradient g and returns [forward values, input gradients]; the expected value is written below."""

import kael


def _leaf(values):
    return kael.tensor(values, dtype=kael.float64, requires_grad=True)


G = [1.0, -2.0, 0.5]


def test_mul(m):
    """Mul.apply(a, b) with a = [1, 2, 3], b = [4, 5, 6], then backward(g = [1, -2, 0.5])"""
    a, b = _leaf([1.0, 2.0, 3.0]), _leaf([4.0, 5.0, 6.0])
    y = m.Mul.apply(a, b)
    y.backward(kael.tensor(G, dtype=kael.float64))
    return [y.tolist(), a.grad.tolist(), b.grad.tolist()]


test_mul.expected = [[4.0, 10.0, 18.0], [4.0, -10.0, 3.0], [1.0, -4.0, 1.5]]


def test_div(m):
    """Div.apply(a, b) with a = [1, 2, 3], b = [4, 5, 6], then backward(g = [1, -2, 0.5])"""
    a, b = _leaf([1.0, 2.0, 3.0]), _leaf([4.0, 5.0, 6.0])
    y = m.Div.apply(a, b)
    y.backward(kael.tensor(G, dtype=kael.float64))
    return [y.tolist(), a.grad.tolist(), b.grad.tolist()]


test_div.expected = [[0.25, 0.4, 0.5], [0.25, -0.4, 0.08333333333333333], [-0.0625, 0.16, -0.041666666666666664]]


def test_exp(m):
    """Exp.apply(x) with x = [0, 1, -1], then backward(g = [1, -2, 0.5])"""
    x = _leaf([0.0, 1.0, -1.0])
    y = m.Exp.apply(x)
    y.backward(kael.tensor(G, dtype=kael.float64))
    return [y.tolist(), x.grad.tolist()]


test_exp.expected = [[1.0, 2.718281828459045, 0.36787944117144233], [1.0, -5.43656365691809, 0.18393972058572117]]


def test_log(m):
    """Log.apply(x) with x = [1, 2, 4], then backward(g = [1, -2, 0.5])"""
    x = _leaf([1.0, 2.0, 4.0])
    y = m.Log.apply(x)
    y.backward(kael.tensor(G, dtype=kael.float64))
    return [y.tolist(), x.grad.tolist()]


test_log.expected = [[0.0, 0.6931471805599453, 1.3862943611198906], [1.0, -1.0, 0.125]]


def test_tanh(m):
    """Tanh.apply(x) with x = [0, 0.5, -2], then backward(g = [1, -2, 0.5])"""
    x = _leaf([0.0, 0.5, -2.0])
    y = m.Tanh.apply(x)
    y.backward(kael.tensor(G, dtype=kael.float64))
    return [y.tolist(), x.grad.tolist()]


test_tanh.expected = [[0.0, 0.46211715726000974, -0.9640275800758169], [1.0, -1.5728954659318548, 0.035325412426582214]]


def test_sigmoid(m):
    """Sigmoid.apply(x) with x = [0, 2, -3], then backward(g = [1, -2, 0.5])"""
    x = _leaf([0.0, 2.0, -3.0])
    y = m.Sigmoid.apply(x)
    y.backward(kael.tensor(G, dtype=kael.float64))
    return [y.tolist(), x.grad.tolist()]


test_sigmoid.expected = [[0.5, 0.8807970779778823, 0.04742587317756678], [0.25, -0.20998717080701323, 0.02258832986545607]]


def test_node_names(m):
    """y.grad_fn.name() for each Function: <ClassName>Backward"""
    x = _leaf([1.0])
    return [m.Mul.apply(x, x).grad_fn.name(), m.Exp.apply(x).grad_fn.name(), m.Sigmoid.apply(x).grad_fn.name()]


test_node_names.expected = ['MulBackward', 'ExpBackward', 'SigmoidBackward']
