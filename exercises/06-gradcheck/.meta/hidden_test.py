"""Hidden tests of gradcheck: named regression cases, then seeded generated ones."""

import random
import threading

import kael

RTOL = 1e-7
ATOL = 1e-9


def _leaf(values):
    return kael.tensor(values, dtype=kael.float64, requires_grad=True)


class WrongSecond(kael.autograd.Function):
    """y = a * b, but b's gradient is g * b instead of g * a."""

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a * b

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        return g * b, g * b


class ForgetsPermutation(kael.autograd.Function):
    """y = x @ P for a permutation P, but backward returns g as if P were the identity: only a
    weighted reduction notices (with a plain sum, g is all ones and so is g @ P^T)."""

    @staticmethod
    def forward(ctx, x):
        p = kael.tensor([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]], dtype=x.dtype)
        return x @ p

    @staticmethod
    def backward(ctx, g):
        return g


class RightPermutation(kael.autograd.Function):
    """y = x @ P with the right backward g @ P^T."""

    @staticmethod
    def forward(ctx, x):
        p = kael.tensor([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]], dtype=x.dtype)
        ctx.p = p
        return x @ p

    @staticmethod
    def backward(ctx, g):
        return g @ ctx.p.transpose(0, 1)


def _outcome(fn):
    try:
        return fn()
    except Exception as exc:
        return [type(exc).__name__, str(exc)]


def test_weights_other_seed(m):
    """reduction_weights(6, seed=7): in [-1, 1), from the documented generator"""
    w = m.reduction_weights(6, seed=7)
    return [w, all(-1.0 <= v < 1.0 for v in w)]


def test_weights_many(m):
    """reduction_weights(1000, seed=0): the last three and the range"""
    w = m.reduction_weights(1000, seed=0)
    return [len(w), w[-3:], min(w) >= -1.0, max(w) < 1.0]


def test_numeric_gradient_is_central(m):
    """numeric_gradient of x ** 3 at x = 2 with eps = 1e-3: central differences are accurate to eps**2"""
    x = _leaf([2.0])
    return m.numeric_gradient(lambda t: t ** 3, [x], 0, [1.0], eps=1e-3)


test_numeric_gradient_is_central.rtol = 1e-9


def test_numeric_gradient_second_input_weighted(m):
    """numeric_gradient for input 1 of a * b.exp() with weights [0.5, -1, 2]"""
    a, b = _leaf([1.0, 2.0, 3.0]), _leaf([0.0, 0.5, -0.5])
    return m.numeric_gradient(lambda p, q: p * q.exp(), [a, b], 1, [0.5, -1.0, 2.0])


test_numeric_gradient_second_input_weighted.rtol = 1e-6


def test_numeric_gradient_matrix_output(m):
    """numeric_gradient of x @ w for input 0, weights in row-major order of the [2, 2] output"""
    x = _leaf([[1.0, 2.0], [3.0, 4.0]])
    w = _leaf([[0.5, -1.0], [2.0, 1.0]])
    return m.numeric_gradient(lambda p, q: p @ q, [x, w], 0, [1.0, 2.0, 3.0, 4.0])


test_numeric_gradient_matrix_output.rtol = 1e-6


def test_numeric_gradient_restores_inputs(m):
    """the inputs hold their original values after numeric_gradient and after gradcheck"""
    x = _leaf([0.3, -0.7, 1.1])
    m.numeric_gradient(lambda t: t.sin(), [x], 0, [1.0, 1.0, 1.0])
    after_numeric = x.tolist()
    m.gradcheck(lambda t: t.tanh() * t, [x])
    return [after_numeric, x.tolist()]


def test_analytic_gradient_unused_input(m):
    """analytic_gradient for an input the function ignores: zeros"""
    a, b = _leaf([1.0, 2.0]), _leaf([3.0, 4.0])
    return m.analytic_gradient(lambda p, q: p * 2, [a, b], 1, [1.0, 1.0])


def test_gradcheck_second_input_wrong(m):
    """gradcheck(WrongSecond.apply, [a, b]) names input 1"""
    return _outcome(lambda: m.gradcheck(WrongSecond.apply, [_leaf([1.0, 2.0]), _leaf([3.0, 5.0])]))


def test_gradcheck_needs_weights(m):
    """gradcheck(ForgetsPermutation.apply, [x]) raises: only the weighted reduction sees it"""
    return _outcome(lambda: m.gradcheck(ForgetsPermutation.apply, [_leaf([1.0, 2.0, 3.0])]))


def test_gradcheck_right_permutation_passes(m):
    """gradcheck(RightPermutation.apply, [x]) is True"""
    return _outcome(lambda: m.gradcheck(RightPermutation.apply, [_leaf([1.0, 2.0, 3.0])]))


def test_gradcheck_skips_inputs_without_grad(m):
    """gradcheck with a constant second input: only the first is checked"""
    c = kael.tensor([1.0, 2.0], dtype=kael.float64)
    return _outcome(lambda: m.gradcheck(lambda a, b: a * b + a.exp(), [_leaf([0.1, 0.2]), c]))


def test_gradcheck_matrix_element_index(m):
    """a wrong backward on a [2, 2] input: the error names the element as [row, column]"""

    class WrongAtOne(kael.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, g):
            mask = kael.tensor([[1.0, 1.0], [1.0, 0.0]], dtype=g.dtype)
            return g * mask

    return _outcome(lambda: m.gradcheck(WrongAtOne.apply, [_leaf([[1.0, 2.0], [3.0, 4.0]])]))


def test_gradcheck_many_ops(m):
    """gradcheck passes for softmax, matmul, sigmoid and a broadcast add"""
    kael.manual_seed(0)
    x = kael.randn(2, 3, dtype=kael.float64).requires_grad_()
    w = kael.randn(3, 2, dtype=kael.float64).requires_grad_()
    b = kael.randn(2, dtype=kael.float64).requires_grad_()
    return [
        _outcome(lambda: m.gradcheck(lambda t: t.softmax(-1), [x])),
        _outcome(lambda: m.gradcheck(lambda p, q, r: (p @ q + r).sigmoid(), [x, w, b])),
    ]


def test_gradcheck_tolerance_arguments(m):
    """a backward off by 1e-4 relative passes with rtol=1e-3 and fails with rtol=1e-6, atol=0"""

    class SlightlyOff(kael.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2.0002

    x = _leaf([1.0, 2.0])
    return [
        _outcome(lambda: m.gradcheck(SlightlyOff.apply, [x], rtol=1e-3)),
        _outcome(lambda: m.gradcheck(SlightlyOff.apply, [x], atol=0.0, rtol=1e-6))[0],
    ]


# -- several failures, the caller's state, the tolerance, seeded generated functions ----------------


class BothWrong(kael.autograd.Function):
    """y = a * b, with both gradients wrong (a's at element [1] only, b's everywhere)."""

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a * b

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        mask = kael.tensor([1.0, 3.0, 1.0], dtype=g.dtype)
        return g * b * mask, g * b


def test_gradcheck_names_the_first_failure(m):
    """both inputs' gradients are wrong: the error names input 0 and its first wrong element [1]"""
    return _outcome(lambda: m.gradcheck(BothWrong.apply, [_leaf([1.0, 2.0, 3.0]), _leaf([4.0, 5.0, 6.0])]))


def test_gradcheck_leaves_the_callers_tensors_alone(m):
    """gradcheck on inputs whose .grad the caller already holds (one None, one set): both .grad
    and every value are as they were afterwards"""
    a = _leaf([0.5, -1.0])
    b = _leaf([2.0, 3.0])
    b.grad = kael.tensor([10.0, 20.0], dtype=kael.float64)
    result = _outcome(lambda: m.gradcheck(lambda p, q: (p * q).tanh(), [a, b]))
    return [result, a.grad is None, b.grad.tolist(), a.tolist(), b.tolist()]


class ScaledGradient(kael.autograd.Function):
    """y = x * x, whose backward is 1.5 times too big."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * 3.0 * x


def test_gradcheck_tolerance_is_relative_to_the_numeric_value(m):
    """analytic = 1.5 x numeric with rtol=0.4, atol=0: |a - n| = 0.5|n| > 0.4|n| fails (measured
    against the analytic value, 0.6|n|, it would pass); rtol=0.6 passes"""
    x = _leaf([1.0, -2.0])
    return [_outcome(lambda: m.gradcheck(ScaledGradient.apply, [x], atol=0.0, rtol=0.4)),
            _outcome(lambda: m.gradcheck(ScaledGradient.apply, [x], atol=0.0, rtol=0.6))]


_PIECES = (
    ("tanh", lambda t: t.tanh()),
    ("square", lambda t: t * t),
    ("exp", lambda t: (t * 0.5).exp()),
    ("sum_rows", lambda t: t.sum(-1, keepdim=True) * t),
    ("sigmoid", lambda t: t.sigmoid()),
)


class WrongAt(kael.autograd.Function):
    """y = x, whose backward scales one element (given as a flat position) by 2."""

    @staticmethod
    def forward(ctx, x, position):
        ctx.position = position
        return x * 1

    @staticmethod
    def backward(ctx, g):
        flat = [1.0] * g.numel()
        flat[ctx.position] = 2.0
        return g * kael.tensor(flat, dtype=g.dtype).reshape(g.shape), None


def test_generated_functions(m):
    """30 seeded functions of 1-3 inputs (shapes with size-1 dims, broadcasting, composed pieces),
    half with one wrong element at a seeded place: gradcheck's result or its error message"""
    rng = random.Random(606)
    out = []
    for _ in range(30):
        shape = [rng.randint(1, 3) for _ in range(rng.randint(1, 3))]
        inputs = [_leaf([round(rng.uniform(-1.5, 1.5), 3) for _ in range(_numel(shape))]).reshape(tuple(shape)).detach().requires_grad_()
                  for _ in range(rng.randint(1, 3))]
        names = [rng.randrange(len(_PIECES)) for _ in inputs]
        wrong = rng.randrange(_numel(shape)) if rng.random() < 0.5 else None
        bad_input = rng.randrange(len(inputs))

        def fn(*xs, names=names, wrong=wrong, bad_input=bad_input):
            total = 0
            for k, (x, piece) in enumerate(zip(xs, names)):
                if k == bad_input and wrong is not None:
                    x = WrongAt.apply(x, wrong)
                total = total + _PIECES[piece][1](x)
            return total

        out.append(_outcome(lambda: m.gradcheck(fn, inputs)))
    return out


def _numel(shape):
    n = 1
    for size in shape:
        n *= size
    return n


# -- regression cases found by `make mutation` ---------------------------------------------------------


def test_weights_default_seed(m):
    """reduction_weights(5) uses seed 0"""
    return m.reduction_weights(5)


def test_analytic_gradient_of_a_constant_function(m):
    """analytic_gradient for a function whose result does not require grad: zeros"""
    x = _leaf([1.0, 2.0, 3.0])
    return m.analytic_gradient(lambda t: kael.ones(2, dtype=kael.float64), [x], 0, [1.0, -1.0])


def test_gradcheck_tolerance_bound_is_inclusive(m):
    """y = 2x at x = 1 with eps = 2**-10: numeric and analytic are exactly equal, and pass with
    atol = rtol = 0 (the bound is |a - n| <= atol + rtol |n|)"""
    return _outcome(lambda: m.gradcheck(lambda t: t * 2, [_leaf([1.0])], eps=2.0 ** -10, atol=0.0, rtol=0.0))


def test_gradcheck_uses_its_seed(m):
    """gradcheck(ForgetsPermutation.apply, [x], seed=s) for s = 0, 1, 12345, 2**40: the weights
    come from the seed given, so the element and values the error reports follow it"""
    x = _leaf([1.0, 2.0, 3.0])
    return [_outcome(lambda: m.gradcheck(ForgetsPermutation.apply, [x], seed=s)) for s in (0, 1, 12345, 2**40)]


def test_gradcheck_constant_first_then_a_wrong_input(m):
    """gradcheck(WrongSecond.apply, [constant, b]): the constant is skipped, b is still checked"""
    c = kael.tensor([1.0, 2.0], dtype=kael.float64)
    return _outcome(lambda: m.gradcheck(WrongSecond.apply, [c, _leaf([3.0, 5.0])]))


# -- outputs that are views of an input, weights at the output's precision --------------------------


class UnsqueezeView(kael.autograd.Function):
    """y = x.unsqueeze(0): a Function whose output is a view of its input (it shares x's memory,
    so perturbing x in place changes y too)."""

    @staticmethod
    def forward(ctx, x):
        return x.unsqueeze(0)

    @staticmethod
    def backward(ctx, g):
        return g.squeeze(0)


class WrongTransposeView(kael.autograd.Function):
    """y = x.transpose(0, 1), a view of x, whose backward forgets to transpose g back."""

    @staticmethod
    def forward(ctx, x):
        return x.transpose(0, 1)

    @staticmethod
    def backward(ctx, g):
        return g.reshape(g.shape[1], g.shape[0])


def _viewed_leaves():
    """Two float64 [2, 3] leaves, values 0.1234...-like (not binary fractions)."""
    return (_leaf([[0.3, -1.2, 0.75], [2.1, -0.45, 1.6]]), _leaf([[1.1, 0.2, -0.9], [-1.7, 0.65, 0.05]]))


def test_numeric_gradient_of_an_output_that_is_a_view_of_the_input(m):
    """numeric_gradient when fn returns a view of an input (itself, its transpose, a row, a stepped
    slice, a view Function, a view of the second input): L(x + eps e_i) and L(x - eps e_i) are
    each taken while x holds that value, so the gradient is the weights, not zeros"""
    a, b = _viewed_leaves()
    w6 = [0.5, -0.25, 0.125, 1.0, -0.75, 0.375]
    return [
        m.numeric_gradient(lambda p, q: p, [a, b], 0, w6),
        m.numeric_gradient(lambda p, q: p.t(), [a, b], 0, w6),
        m.numeric_gradient(lambda p, q: p[1], [a, b], 0, [0.5, -1.5, 2.0]),
        m.numeric_gradient(lambda p, q: p[:, ::2], [a, b], 0, [0.25, -0.5, 1.0, 0.75]),
        m.numeric_gradient(lambda p, q: UnsqueezeView.apply(p), [a, b], 0, w6),
        m.numeric_gradient(lambda p, q: q.transpose(0, 1), [a, b], 1, w6),
        [a.tolist(), b.tolist(), a.grad is None, b.grad is None],
    ]


test_numeric_gradient_of_an_output_that_is_a_view_of_the_input.rtol = 1e-6


def test_gradcheck_of_an_output_that_is_a_view_of_the_input(m):
    """gradcheck when fn returns a view of an input: a transpose, a row times the other input,
    a view Function pass; a view Function with a wrong backward names its first wrong element"""
    a, b = _viewed_leaves()
    return [
        _outcome(lambda: m.gradcheck(lambda p, q: p.t(), [a, b])),
        _outcome(lambda: m.gradcheck(lambda p, q: p[0] * q[1], [a, b])),
        _outcome(lambda: m.gradcheck(lambda p, q: UnsqueezeView.apply(q), [a, b])),
        _outcome(lambda: m.gradcheck(lambda p: WrongTransposeView.apply(p), [a])),
        [a.tolist(), b.tolist(), a.grad is None, b.grad is None],
    ]


def test_weights_are_used_at_the_outputs_precision(m):
    """analytic_gradient and numeric_gradient of t.expand(2) * 1.0 at x = [1] in float64 with
    weights that nearly cancel ([0.3, -0.29999999]; [1 + 2**-30, -1], where eps = 2**-10 makes
    every step exact): the gradient is their float64 sum (1.0000000005e-08, 2**-30), not what is
    left after rounding them to float32"""
    fn = lambda t: t.expand(2) * 1.0  # noqa: E731
    y = _leaf([1.0])
    return [
        m.analytic_gradient(fn, [y], 0, [0.3, -0.29999999]),
        m.analytic_gradient(fn, [y], 0, [1.0 + 2.0 ** -30, -1.0]),
        m.numeric_gradient(fn, [y], 0, [1.0 + 2.0 ** -30, -1.0], eps=2.0 ** -10),
    ]


test_weights_are_used_at_the_outputs_precision.rtol = 1e-6
test_weights_are_used_at_the_outputs_precision.atol = 0.0


# -- a second thread: a gradcheck keeps its state to itself -------------------------------------------


def test_gradcheck_while_another_thread_runs_one(m):
    """gradcheck of a right Function here; inside its third call of fn (mid-check), a second
    thread runs a whole gradcheck of WrongSecond (joined, no timeout) and gets its own error:
    this one still passes, and the caller's tensors are left alone"""
    other, calls = [], []

    def run_other():
        other.append(_outcome(lambda: m.gradcheck(WrongSecond.apply, [_leaf([1.0, 2.0]), _leaf([3.0, 5.0])])))

    def fn(a, b):
        calls.append(1)
        if len(calls) == 3:
            thread = threading.Thread(target=run_other)
            thread.start()
            thread.join()
        return RightPermutation.apply(a * b)

    a, b = _leaf([0.5, -1.0, 2.0]), _leaf([1.5, 0.25, -2.0])
    mine = _outcome(lambda: m.gradcheck(fn, [a, b]))
    return [mine, other, a.tolist(), b.tolist(), a.grad is None, b.grad is None]


def _strided_leaf(rng, shape):
    """A float64 leaf of ``shape`` that is not contiguous: the transpose of a seeded tensor, or
    every other element of a longer one (a step-2 slice), with values like 0.1234567 (adding and
    then subtracting eps does not give them back bit for bit)."""
    count = _numel(shape)
    values = [rng.uniform(-1.5, 1.5) for _ in range(2 * count)]
    if len(shape) >= 2 and rng.random() < 0.5:
        flipped = tuple(shape[:-2]) + (shape[-1], shape[-2])
        x = kael.tensor(values[:count], dtype=kael.float64).reshape(flipped).transpose(-1, -2)
    else:
        x = kael.tensor(values, dtype=kael.float64)[::2].reshape(tuple(shape)) if len(shape) == 1 \
            else kael.tensor(values, dtype=kael.float64).reshape(tuple(shape[:-1]) + (2 * shape[-1],))[..., ::2]
    return x.detach().requires_grad_()


def test_strided_inputs_are_perturbed_and_restored_exactly(m):
    """8 seeded non-contiguous inputs (transposed, sliced with a step): numeric_gradient perturbs
    the input itself (not a reshaped copy), and after it and after gradcheck every input holds
    exactly, bit for bit, the values it had (restore the saved value, do not add eps back)"""
    rng = random.Random(616)
    out = []
    for _ in range(8):
        shape = [rng.randint(1, 3) for _ in range(rng.randint(1, 3))]
        xs = [_strided_leaf(rng, shape) for _ in range(rng.randint(1, 2))]
        before = [x.tolist() for x in xs]
        fn = (lambda a: (a.sin() * a).sum(-1)) if len(xs) == 1 else (lambda a, b: (a * b.tanh()).sum(-1))
        weights = m.reduction_weights(_numel(shape[:-1]), rng.randrange(100))
        numeric = m.numeric_gradient(fn, xs, rng.randrange(len(xs)), weights)
        exact_after_numeric = [x.tolist() == b for x, b in zip(xs, before)]
        result = _outcome(lambda: m.gradcheck(fn, xs))
        out.append([numeric, exact_after_numeric, [x.tolist() == b for x, b in zip(xs, before)], result])
    return out


# -- the declared domain (harness/domain.py): every function and every parameter --------------------

from judge_domain import Domain  # noqa: E402  (the judge copies harness/domain.py beside this file)

DOMAIN = Domain("gradcheck")


class Flipped(kael.autograd.Function):
    """y = a * b, whose backward hands a the gradient in reverse element order: right for a plain
    sum when the gradient is uniform, wrong for the weighted reduction."""

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a * b

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        flat = (g * b).reshape(-1)
        return flat.flip(0).reshape(a.shape) if flat.numel() else g * b, g * a


class Scaled(kael.autograd.Function):
    """y = a * b, whose backward gives b the gradient g * a times 1.01: a 1% error."""

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a * b

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        return g * b, g * a * 1.01


# name -> fn(a, b): right ones (their backward is kael's; one returns a view of an input, which
# perturbing that input in place changes too) and wrong ones (Flipped, Scaled)
FUNCTIONS = {
    "a * b + exp(a)": lambda a, b: a * b + a.exp(),
    "sum(a * a) * b": lambda a, b: (a * a).sum() * b,
    "tanh(a) - b": lambda a, b: a.tanh() - b,
    "a alone (b unused)": lambda a, b: a * 1.0,
    "a view of b (a unused)": lambda a, b: b.unsqueeze(0),
    "a constant": lambda a, b: kael.tensor([1.5, -2.0], dtype=kael.float64),
    "wrong: Flipped": lambda a, b: Flipped.apply(a, b),
    "wrong: Scaled": lambda a, b: Scaled.apply(a, b),
}


def _inputs(d):
    """Two float64 inputs of one small shape (rank 0-3, sizes 0, 1, n, at most 6 elements;
    contiguous, transposed or stepped: a view is perturbed in place; never expanded, whose
    elements share memory); each requires grad or not."""
    shape = d.shape(max_rank=3, max_numel=6)
    xs = [d.tensor(shape, kael.float64, mix=d.choice(("ordinary", "zeros", "ties")),
                   layout=d.choice(("contiguous", "transposed", "stepped"))) for _ in range(2)]
    for x in xs:
        if d.chance(0.8):
            x.requires_grad_(True)
        else:
            d.label("input without grad")
    return xs


def _weights_for(d, m, fn, xs):
    with kael.no_grad():
        n = fn(*xs).numel()
    return [(d.integer(0, 2**31) - 2**30) / 2**30 for _ in range(n)]


@DOMAIN.case("gradcheck", cases=200, classes=tuple(f"function {n}" for n in FUNCTIONS) + (
    "rank 0", "rank 3", "size 0", "size 1", "layout transposed", "layout stepped",
    "input without grad", "call reduction_weights", "call numeric_gradient", "call analytic_gradient",
    "call gradcheck", "eps 0.001", "atol 0.05", "rtol 0.02", "seed 12345", "input 1"))
def gradcheck_case(d, m):
    """One of the four functions with every parameter drawn (seed, eps, atol, rtol, which input),
    on a drawn function of two inputs: the result, the inputs' values and .grad afterwards."""
    call = d.choice(("reduction_weights", "numeric_gradient", "analytic_gradient", "gradcheck"), "call")
    if call == "reduction_weights":
        n = d.choice((0, 1, 5, 17))
        seed = d.choice((0, 1, 12345, -7, 2**40))
        d.inputs.append(f"n {n}, seed {seed}")
        d.call("reduction_weights(n, seed=seed)", m.reduction_weights, n, seed=seed)
        return
    name = d.choice(tuple(FUNCTIONS), "function")
    fn, xs = FUNCTIONS[name], _inputs(d)
    if call == "gradcheck":
        eps, atol, rtol, seed = (d.choice((1e-6, 1e-6, 1e-3), "eps"), d.choice((1e-5, 1e-5, 5e-2), "atol"),
                                 d.choice((1e-3, 1e-3, 2e-2), "rtol"), d.choice((0, 0, 12345), "seed"))
        d.inputs.append(f"eps {eps}, atol {atol}, rtol {rtol}, seed {seed}")
        d.call("gradcheck(fn, inputs, eps, atol, rtol, seed)", m.gradcheck, fn, xs, eps=eps, atol=atol,
               rtol=rtol, seed=seed)
        return
    i = d.choice((0, 1), "input")
    weights = _weights_for(d, m, fn, xs)
    if call == "analytic_gradient" and not xs[i].requires_grad:
        xs[i].requires_grad_(True)  # the statement: analytic_gradient is asked only of such inputs
    if call == "numeric_gradient":
        eps = d.choice((1e-6, 1e-4, 1e-3), "eps")
        d.call("numeric_gradient(fn, inputs, i, weights, eps)", m.numeric_gradient, fn, xs, i, weights, eps=eps)
    else:
        d.call("analytic_gradient(fn, inputs, i, weights)", m.analytic_gradient, fn, xs, i, weights)


def test_domain_gradcheck(m):
    """reduction_weights, numeric_gradient, analytic_gradient and gradcheck on 200 generated cases:
    every parameter varied, right and wrong functions, inputs' values and .grad left alone"""
    return DOMAIN.run(m, "gradcheck", float64=(1e-6, 1e-8))
