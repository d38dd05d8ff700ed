"""Hidden tests of elementwise."""

import kael

RTOL = 1e-6
ATOL = 1e-9


def _leaf(values):
    return kael.tensor(values, dtype=kael.float64, requires_grad=True)


def _grads_of(fn, *values):
    xs = [_leaf(v) for v in values]
    y = fn(*xs)
    kael.manual_seed(3)
    w = kael.randn(*y.shape, dtype=kael.float64)
    (y * w).sum().backward()
    return [x.grad.tolist() for x in xs]


def _matches_kael(mine, theirs, *values):
    return [_grads_of(mine, *values), _grads_of(theirs, *values)]


def test_mul_matrix(m):
    """Mul on 2 x 3 operands: gradients equal kael's a * b"""
    a = [[1.0, -2.0, 3.0], [0.5, 0.0, -1.5]]
    b = [[2.0, 2.0, -1.0], [4.0, 3.0, 0.25]]
    return _matches_kael(m.Mul.apply, lambda x, y: x * y, a, b)


def test_mul_same_tensor_twice(m):
    """Mul.apply(x, x): both gradients reach x, giving 2x"""
    x = _leaf([1.0, -3.0])
    m.Mul.apply(x, x).sum().backward()
    return x.grad.tolist()


def test_div_matrix(m):
    """Div on 2 x 2 operands: gradients equal kael's a / b"""
    return _matches_kael(m.Div.apply, lambda x, y: x / y, [[1.0, -2.0], [3.0, 4.0]], [[0.5, 2.0], [-4.0, 8.0]])


def test_exp_log_chain(m):
    """Log.apply(Exp.apply(x)) is x, and its gradient is 1"""
    x = _leaf([-1.0, 0.0, 2.5])
    y = m.Log.apply(m.Exp.apply(x))
    y.sum().backward()
    return [y.tolist(), x.grad.tolist()]


def test_tanh_saturates(m):
    """Tanh at +-20: gradient ~ 0, no NaN"""
    return _grads_of(m.Tanh.apply, [20.0, -20.0, 0.0])


def test_sigmoid_matches_kael(m):
    """Sigmoid on several values: gradients equal kael.sigmoid's"""
    return _matches_kael(m.Sigmoid.apply, kael.sigmoid, [-4.0, -0.5, 0.0, 0.5, 4.0])


def test_tanh_matches_kael(m):
    """Tanh on several values: gradients equal kael.tanh's"""
    return _matches_kael(m.Tanh.apply, kael.tanh, [-1.5, -0.1, 0.3, 2.0])


def test_log_matches_kael(m):
    """Log on several values: gradients equal kael.log's"""
    return _matches_kael(m.Log.apply, kael.log, [0.1, 1.0, 3.0, 10.0])


def test_gradcheck_all(m):
    """kael.autograd.gradcheck on every Function (float64)"""
    kael.manual_seed(0)
    a = (kael.rand(3, 2, dtype=kael.float64) + 0.5).requires_grad_()
    b = (kael.rand(3, 2, dtype=kael.float64) + 0.5).requires_grad_()
    results = []
    for fn, args in [(m.Mul.apply, (a, b)), (m.Div.apply, (a, b)), (m.Exp.apply, (a,)),
                     (m.Log.apply, (a,)), (m.Tanh.apply, (a,)), (m.Sigmoid.apply, (a,))]:
        try:
            results.append(kael.autograd.gradcheck(fn, args))
        except Exception as exc:
            results.append(f"{type(exc).__name__}: {exc}")  # the cause, not only its type
    return results


def test_constant_operand(m):
    """Mul.apply(x, c) with a constant c that does not require grad: x.grad = c"""
    x = _leaf([1.0, 2.0])
    c = kael.tensor([3.0, -1.0], dtype=kael.float64)
    m.Mul.apply(x, c).sum().backward()
    return [x.grad.tolist(), c.grad is None]


def test_saved_output_checked_for_inplace_change(m):
    """Exp.apply(x), then y.add_(1) under no_grad, then backward: the saved output was modified"""
    x = _leaf([0.0, 1.0])
    y = m.Exp.apply(x)
    with kael.no_grad():
        y.add_(1)
    y.sum().backward()
    return x.grad.tolist()


def test_saved_input_checked_for_inplace_change(m):
    """Mul.apply(a, b), then b.mul_(2) under no_grad, then backward: the saved b was modified"""
    a = _leaf([1.0, 2.0])
    b = kael.tensor([3.0, 4.0], dtype=kael.float64)
    y = m.Mul.apply(a, b)
    with kael.no_grad():
        b.mul_(2)
    y.sum().backward()
    return a.grad.tolist()


def test_forward_records_one_node(m):
    """Sigmoid.apply(x): the result's node is SigmoidBackward and leads straight to x"""
    x = _leaf([1.0])
    y = m.Sigmoid.apply(x)
    node = y.grad_fn
    return [node.name(), [n.name() if n is not None else None for n, _ in node.next_functions]]


def test_float32_gradients(m):
    """Tanh and Exp on float32 inputs keep float32 gradients"""
    x = kael.tensor([0.5, -0.5], requires_grad=True)
    (m.Tanh.apply(x) + m.Exp.apply(x)).sum().backward()
    return [x.grad.dtype.name, x.grad.tolist()]


test_float32_gradients.rtol = 1e-5
