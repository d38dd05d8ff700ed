"""Public tests of backward_engine: each test builds a graph, calls your backward(...) and
returns the leaves' gradients as lists; the expected value is written below the test.
kael's own engine is switched off while your backward runs."""

import kael
import kael.autograd as autograd
import kael.autograd.engine as engine


def _run(m, root, gradient=None):
    """m.backward(root, gradient) with kael's own engine unavailable."""
    saved = autograd.run_backward, engine.run_backward

    def refuse(*args, **kwargs):
        raise RuntimeError("this exercise asks for your own engine: kael's run_backward was called")

    autograd.run_backward = engine.run_backward = refuse
    try:
        return m.backward(root, gradient)
    finally:
        autograd.run_backward, engine.run_backward = saved


class LazyAdd(kael.autograd.Function):
    """y = a + b with broadcasting, whose backward hands g back unreduced: da = g, db = g.
    The engine must sum each gradient to the shape recorded in NodeInput."""

    @staticmethod
    def forward(ctx, a, b):
        return a + b

    @staticmethod
    def backward(ctx, g):
        return g, g


class Probe(kael.autograd.Function):
    """y = x; its backward logs [label, gradient] each time it runs."""

    @staticmethod
    def forward(ctx, x, label, log):
        ctx.label = label
        ctx.log = log
        return x.clone()

    @staticmethod
    def backward(ctx, g):
        ctx.log.append([ctx.label, g.tolist()])
        return g, None, None


class Pass(kael.autograd.Function):
    """y = x; backward hands back the very tensor it received."""

    @staticmethod
    def forward(ctx, x):
        return x.clone()

    @staticmethod
    def backward(ctx, g):
        return g


def test_sum_of_product(m):
    """backward((x * w).sum()) gives x.grad = w and w.grad = x"""
    x = kael.tensor([1.0, 2.0, 3.0], requires_grad=True)
    w = kael.tensor([0.5, -1.0, 2.0], requires_grad=True)
    _run(m, (x * w).sum())
    return [x.grad.tolist(), w.grad.tolist()]


test_sum_of_product.expected = [[0.5, -1.0, 2.0], [1.0, 2.0, 3.0]]


def test_diamond(m):
    """backward((x * 2 + x * 3).sum()): ADR 0005's diamond, x.grad = [5, 5]"""
    x = kael.tensor([1.0, 2.0], requires_grad=True)
    _run(m, (x * 2 + x * 3).sum())
    return x.grad.tolist()


test_diamond.expected = [5.0, 5.0]


def test_repeated_input(m):
    """backward((x * x).sum()) gives 2 * x: both edges of MulBackward lead to x"""
    x = kael.tensor([1.0, -2.0, 3.0], requires_grad=True)
    _run(m, (x * x).sum())
    return x.grad.tolist()


test_repeated_input.expected = [2.0, -4.0, 6.0]


def test_constant_has_no_edge(m):
    """backward(((x * 2) + 1).sum()): the constants have None edges"""
    x = kael.tensor([1.0, 2.0], requires_grad=True)
    _run(m, ((x * 2) + 1).sum())
    return x.grad.tolist()


test_constant_has_no_edge.expected = [2.0, 2.0]


def test_unbroadcast_to_recorded_shape(m):
    """backward((LazyAdd.apply(a, b) * a).sum()) with a of shape [2, 3] and b of shape [3]"""
    a = kael.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    b = kael.tensor([10.0, 20.0, 30.0], requires_grad=True)
    _run(m, (LazyAdd.apply(a, b) * a).sum())
    return [a.grad.tolist(), b.grad.tolist()]


test_unbroadcast_to_recorded_shape.expected = [[[12.0, 24.0, 36.0], [18.0, 30.0, 42.0]], [5.0, 7.0, 9.0]]


def test_explicit_gradient(m):
    """backward(x * 3, gradient=kael.tensor([1.0, 0.5]))"""
    x = kael.tensor([1.0, 2.0], requires_grad=True)
    _run(m, x * 3, kael.tensor([1.0, 0.5]))
    return x.grad.tolist()


test_explicit_gradient.expected = [3.0, 1.5]


def test_implicit_gradient_needs_scalar(m):
    """backward(x * 2) without a gradient raises: x * 2 has two elements"""
    x = kael.tensor([1.0, 2.0], requires_grad=True)
    _run(m, x * 2)


test_implicit_gradient_needs_scalar.raises = ["RuntimeError", "grad can be implicitly created only for scalar outputs"]


def test_gradients_accumulate_across_calls(m):
    """two backward calls on two fresh graphs add up in x.grad"""
    x = kael.tensor([1.0, 2.0], requires_grad=True)
    _run(m, (x * 3).sum())
    _run(m, (x * x).sum())
    return x.grad.tolist()


test_gradients_accumulate_across_calls.expected = [5.0, 7.0]


def test_node_runs_once_with_every_contribution(m):
    """a Probe node used by a short and a long path runs once, with the summed gradient"""
    log = []
    x = kael.tensor([1.0, 2.0], requires_grad=True)
    p = Probe.apply(x * 1.5, "p", log)
    long_path = ((p * 2).exp() * 0 + p * 3) * 2
    _run(m, (long_path + p).sum())
    return [log, x.grad.tolist()]


test_node_runs_once_with_every_contribution.expected = [[["p", [7.0, 7.0]]], [10.5, 10.5]]


def test_deep_chain(m):
    """a chain of 5,000 additions: no recursion (explicit stacks), x.grad = 1"""
    x = kael.tensor([1.0], requires_grad=True)
    y = x
    for _ in range(5000):
        y = y + 1.0
    _run(m, y.sum())
    return x.grad.tolist()


test_deep_chain.expected = [1.0]


def test_scalar_rule_one_element_root(m):
    """backward(y) for y of shape [1, 1] (one element, not 0-d): the implicit seed is allowed"""
    x = kael.tensor([[3.0]], requires_grad=True)
    _run(m, x * x)
    return x.grad.tolist()


test_scalar_rule_one_element_root.expected = [[6.0]]


def test_first_gradient_is_copied(m):
    """x.grad is a copy of the first gradient, and a kept x.grad never changes: backward(Pass(x), G),
    then G.mul_(0), then a second backward adds into a new tensor"""
    x = kael.tensor([1.0, 2.0], requires_grad=True)
    G = kael.tensor([4.0, 5.0])
    _run(m, Pass.apply(x), G)
    G.mul_(0)
    kept = x.grad
    first = kept.tolist()
    _run(m, (x * x).sum())
    return [first, kept.tolist(), x.grad.tolist()]


test_first_gradient_is_copied.expected = [[4.0, 5.0], [4.0, 5.0], [6.0, 9.0]]


def test_no_history_in_gradients(m):
    """after backward, x.grad has no grad_fn and does not require grad"""
    x = kael.tensor([1.0, 2.0], requires_grad=True)
    _run(m, (x.exp() * x).sum())
    return [x.grad.grad_fn is None, x.grad.requires_grad, kael.is_grad_enabled()]


test_no_history_in_gradients.expected = [True, False, True]


class GradModeProbe(kael.autograd.Function):
    """y = 2 x; backward records whether grad mode is on while it runs."""

    @staticmethod
    def forward(ctx, x, log):
        ctx.log = log
        return x * 2

    @staticmethod
    def backward(ctx, g):
        ctx.log.append(kael.is_grad_enabled())
        return g * 2, None


def test_backward_runs_with_grad_mode_off(m):
    """every node's backward runs with grad mode off, and grad mode is on again afterwards"""
    log = []
    x = kael.tensor([1.0, -2.0], requires_grad=True)
    y = GradModeProbe.apply(GradModeProbe.apply(x, log).exp(), log)
    _run(m, y.sum())
    return [log, kael.is_grad_enabled(), x.grad.requires_grad]


test_backward_runs_with_grad_mode_off.expected = [[False, False], True, False]


def test_grad_mode_restored_under_no_grad(m):
    """backward((x * 3).sum()) called inside kael.no_grad(): grad mode is still off right after it
    (the pass restores the caller's mode, it does not switch it on)"""
    x = kael.tensor([1.0, 2.0], requires_grad=True)
    y = (x * 3).sum()
    with kael.no_grad():
        _run(m, y)
        inside = kael.is_grad_enabled()
    return [inside, x.grad.tolist()]


test_grad_mode_restored_under_no_grad.expected = [False, [3.0, 3.0]]
