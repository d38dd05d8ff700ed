"""Hidden tests of backward_engine. kael's engine is switched off for the whole run, before the
submission is imported (the rules of .meta/config.json, applied by harness/rules.py): not only
its module attributes, but the code of its functions and its files on disk; and
sys.setrecursionlimit is disabled."""

import random
import sys
import threading

import kael
import kael.nn as nn

RTOL = 1e-4
ATOL = 1e-5


def _run(m, root, gradient=None):
    return m.backward(root, gradient)


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


class LazyMul(kael.autograd.Function):
    """y = a * b with broadcasting; backward returns g * b and g * a unreduced."""

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a * b

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        return g * b, g * a


class Pass(kael.autograd.Function):
    """y = x; backward hands back the very tensor it received."""

    @staticmethod
    def forward(ctx, x):
        return x.clone()

    @staticmethod
    def backward(ctx, g):
        return g


class FirstOnly(kael.autograd.Function):
    """y = a + b, but backward sends a gradient to a only (None for b)."""

    @staticmethod
    def forward(ctx, a, b):
        return a + b

    @staticmethod
    def backward(ctx, g):
        return g, None


def test_shared_node_waits_for_later_branch(m):
    """x -> a = exp(x) feeding a, a.sin() and (a * a).tanh(): a's node must wait for all three"""
    log = []
    x = kael.tensor([0.1, 0.2, 0.3], dtype=kael.float64, requires_grad=True)
    a = Probe.apply(x.exp(), "a", log)
    y = (a + a.sin() + (a * a).tanh() * 2).sum()
    _run(m, y)
    return [len(log), log[0][0], x.grad.tolist()]


def test_buffers_add_contributions(m):
    """y = x * w + x * v + x: three contributions to x.grad must add"""
    x = kael.tensor([1.0, 2.0], requires_grad=True)
    w = kael.tensor([3.0, 4.0], requires_grad=True)
    v = kael.tensor([5.0, 6.0], requires_grad=True)
    _run(m, (x * w + x * v + x).sum())
    return [x.grad.tolist(), w.grad.tolist(), v.grad.tolist()]


def test_cube(m):
    """backward((x * x * x).sum()) gives 3 x^2"""
    x = kael.tensor([1.0, 2.0, -1.0], requires_grad=True)
    _run(m, (x * x * x).sum())
    return x.grad.tolist()


def test_unbroadcast_batch_dims(m):
    """LazyMul of a [2, 1, 3] and b [4, 1]: both gradients summed to their recorded shapes"""
    a = kael.arange(6, dtype=kael.float64).reshape(2, 1, 3).requires_grad_()
    b = kael.tensor([[1.0], [2.0], [3.0], [4.0]], dtype=kael.float64, requires_grad=True)
    y = LazyMul.apply(a, b)
    _run(m, (y * y).sum())
    return [list(a.grad.shape), a.grad.tolist(), list(b.grad.shape), b.grad.tolist()]


def test_unbroadcast_to_scalar_operand(m):
    """LazyMul of x [3] and a 0-d s: s.grad is 0-d"""
    x = kael.tensor([1.0, 2.0, 3.0], requires_grad=True)
    s = kael.tensor(2.0, requires_grad=True)
    _run(m, LazyMul.apply(x, s).sum())
    return [list(s.grad.shape), s.grad.tolist(), x.grad.tolist()]


def test_unbroadcast_keepdim_operand(m):
    """LazyMul of a [3, 4] and b [3, 1]: b.grad has shape [3, 1]"""
    a = kael.arange(12, dtype=kael.float64).reshape(3, 4).requires_grad_()
    b = kael.tensor([[1.0], [-1.0], [0.5]], dtype=kael.float64, requires_grad=True)
    _run(m, LazyMul.apply(a, b).sum())
    return [list(b.grad.shape), b.grad.tolist()]


def test_deep_chain_of_muls(m):
    """a chain of 3,000 multiplications by 1.0001 and one diamond at the bottom"""
    x = kael.tensor([1.0], dtype=kael.float64, requires_grad=True)
    y = x * 2 + x
    for _ in range(3000):
        y = y * 1.0001
    _run(m, y.sum())
    return x.grad.tolist()


def test_scalar_rule_matrix_root(m):
    """backward(x @ w) of shape [2, 2] without a gradient raises"""
    x = kael.ones(2, 3, requires_grad=True)
    w = kael.ones(3, 2, requires_grad=True)
    _run(m, x @ w)


def test_scalar_rule_vector_of_one_grad_fn(m):
    """backward(x.exp()) for x of shape [3] raises, and leaves x.grad untouched"""
    x = kael.tensor([1.0, 2.0, 3.0], requires_grad=True)
    try:
        _run(m, x.exp())
    except RuntimeError as exc:
        return [str(exc), x.grad is None]
    return ["no error", x.grad is None]


def test_explicit_gradient_matrix(m):
    """backward(x @ w, gradient=G) for a [2, 3] @ [3, 2] product"""
    x = kael.arange(6, dtype=kael.float64).reshape(2, 3).requires_grad_()
    w = kael.arange(6, dtype=kael.float64).reshape(3, 2).requires_grad_()
    G = kael.tensor([[1.0, 0.0], [0.5, -1.0]], dtype=kael.float64)
    _run(m, x @ w, G)
    return [x.grad.tolist(), w.grad.tolist()]


def test_none_gradient_still_counts(m):
    """FirstOnly sends None to b's branch: x (only under b) keeps grad None, z gets its gradient"""
    x = kael.tensor([1.0], requires_grad=True)
    z = kael.tensor([2.0], requires_grad=True)
    shared = z * 1.0
    y = FirstOnly.apply(shared * 3, shared + x)
    _run(m, y.sum())
    return [x.grad is None, z.grad.tolist()]


def test_mlp_matches_kael(m):
    """a Linear-ReLU-Linear MLP with mse_loss: every parameter's gradient"""
    kael.manual_seed(0)
    net = nn.Sequential(nn.Linear(3, 5), nn.ReLU(), nn.Linear(5, 2))
    x = kael.randn(8, 3)
    target = kael.randn(8, 2)
    loss = nn.functional.mse_loss(net(x), target)
    _run(m, loss)
    return [p.grad.tolist() for p in net.parameters()]


def test_wide_sum_of_many_leaves(m):
    """y = sum of 200 leaves, each used twice"""
    xs = [kael.tensor([float(i)], requires_grad=True) for i in range(200)]
    y = xs[0] * xs[0]
    for x in xs[1:]:
        y = y + x * x
    _run(m, y.sum())
    return [x.grad.tolist()[0] for x in xs[::20]]


def test_leaf_used_at_several_depths(m):
    """x enters at the bottom and again near the top: x.grad sums both"""
    x = kael.tensor([0.5, -0.5], dtype=kael.float64, requires_grad=True)
    y = x.tanh()
    for _ in range(10):
        y = y.sin() * 1.1
    _run(m, (y * x).sum())
    return x.grad.tolist()


# -- generated cases: seeded shapes, dtypes and values ---------------------------------------------


def _tensor(rng, shape, dtype, low=-2.0, high=2.0):
    """A tensor of ``shape`` with seeded values (the same in every run of these tests)."""
    n = 1
    for size in shape:
        n *= size
    values = [round(rng.uniform(low, high), 3) for _ in range(n)]
    return kael.tensor(values, dtype=dtype).reshape(tuple(shape))


def _broadcast_shapes(rng):
    """Two shapes that broadcast: 0-3 leading dims on one side only, and size-1 dims (and now
    and then a zero-size dim) anywhere in either."""
    core = [0 if rng.random() < 0.05 else rng.choice([2, 3]) for _ in range(rng.randint(0, 3))]
    lead = [rng.choice([1, 2, 3]) for _ in range(rng.randint(0, 3))]
    short = [1 if rng.random() < 0.4 else n for n in core]
    long = lead + [1 if rng.random() < 0.2 else n for n in core]
    return (short, long) if rng.random() < 0.5 else (long, short)


def _summary(t):
    return None if t is None else [list(t.shape), str(t.dtype), t.tolist()]


def test_generated_unbroadcasting(m):
    """LazyMul on 24 seeded pairs of broadcasting shapes (0-3 leading dims, size-1 dims anywhere,
    float32 and float64): every gradient summed to its operand's shape, in its dtype"""
    rng = random.Random(1515)
    out = []
    for _ in range(24):
        dtype = rng.choice([kael.float32, kael.float64])
        shape_a, shape_b = _broadcast_shapes(rng)
        a = _tensor(rng, shape_a, dtype).requires_grad_()
        b = _tensor(rng, shape_b, dtype).requires_grad_()
        y = LazyMul.apply(a, b)
        weights = _tensor(rng, list(y.shape), dtype)
        _run(m, (y * weights).sum())
        out.append([_summary(a.grad), _summary(b.grad)])
    return out


def test_grad_mode_restored_after_a_failing_node(m):
    """a node's backward raises: the error reaches the caller and grad mode is on again"""
    x = kael.tensor([1.0], requires_grad=True)
    try:
        _run(m, Failing.apply(x * 2).sum())
    except ValueError as exc:
        return [str(exc), kael.is_grad_enabled()]
    return ["no error", kael.is_grad_enabled()]


class Failing(kael.autograd.Function):
    """y = x; backward raises ValueError."""

    @staticmethod
    def forward(ctx, x):
        return x.clone()

    @staticmethod
    def backward(ctx, g):
        raise ValueError("this node's backward fails on purpose")


class Callback(kael.autograd.Function):
    """y = x; its backward calls ``call(g)`` before passing g on."""

    @staticmethod
    def forward(ctx, x, call):
        ctx.call = call
        return x.clone()

    @staticmethod
    def backward(ctx, g):
        ctx.call(g)
        return g, None


def test_implicit_seed_has_the_roots_dtype(m):
    """backward(y) for 1-element float32 and float64 roots: the seed the root's node receives has
    the root's dtype"""
    out = []
    for dtype in (kael.float32, kael.float64):
        log = []
        x = kael.tensor([1.5], dtype=dtype, requires_grad=True)
        _run(m, Callback.apply(x * 3, lambda g: log.append(str(g.dtype))))
        out.append([str(x.grad.dtype), x.grad.tolist(), log])
    return out


def test_gradients_keep_float32(m):
    """a float32 MLP: every parameter's gradient is float32"""
    kael.manual_seed(3)
    net = nn.Sequential(nn.Linear(4, 6), nn.Tanh(), nn.Linear(6, 1))
    loss = net(kael.randn(5, 4)).pow(2).mean()
    _run(m, loss)
    return [[str(p.grad.dtype), p.grad.tolist()] for p in net.parameters()]


def test_views_with_offsets_as_leaves_inputs(m):
    """inputs built from strided views with offsets (x[1:, ::2], x.t()): gradients land on x"""
    x = kael.arange(12, dtype=kael.float64).reshape(3, 4).requires_grad_()
    y = (x[1:, ::2] * 2).sum() + (x.t() * x.t()).sum()
    _run(m, y)
    return x.grad.tolist()


def test_unbroadcast_after_a_size_one_leading_dim(m):
    """LazyMul of a [1, 3, 4] and b [3, 1]: b's gradient sums its size-1 dim, which comes after a
    leading dim of size 1 in the gradient"""
    a = kael.arange(12, dtype=kael.float64).reshape(1, 3, 4).requires_grad_()
    b = kael.tensor([[1.0], [-2.0], [0.5]], dtype=kael.float64, requires_grad=True)
    _run(m, LazyMul.apply(a, b).sum())
    return [_summary(a.grad), _summary(b.grad)]


# -- a second thread, and a stack that stays flat ------------------------------------------------------


def _other_backward(m, out):
    """A backward of an independent graph, run whole in a second thread while this one waits in
    the middle of its own backward (a join, no timeout); its gradients go to ``out``."""
    def run():
        try:
            w = kael.tensor([[1.0, -2.0], [0.5, 3.0]], requires_grad=True)
            v = kael.tensor([2.0, -1.0], requires_grad=True)
            _run(m, ((w * v).exp() * 0.25 + w * 2).sum())
            out.append([w.grad.tolist(), v.grad.tolist()])
        except Exception as exc:
            out.append(f"{type(exc).__name__}: {exc}")

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()


def test_two_independent_backwards_in_two_threads(m):
    """in the middle of this backward (a Callback node between a diamond's two branches), a second
    thread runs a whole backward of another graph: each gets its own gradients"""
    other = []
    x = kael.tensor([0.5, -1.0, 2.0], requires_grad=True)
    a = x * 1.5
    b = Callback.apply(a.exp(), lambda g: _other_backward(m, other))
    _run(m, (b * a + a.sin() * 2).sum())
    return [x.grad.tolist(), other]


def _frames_below():
    """How many frames are below the caller's (counting stops at 400)."""
    frame, n = sys._getframe(1), 0
    while frame is not None and n < 400:
        frame, n = frame.f_back, n + 1
    return n


def test_the_stack_stays_flat_along_a_chain(m):
    """a chain of 250 Callback nodes: the engine calls each from the same stack depth (an explicit
    stack), whatever the recursion limit is: [max - min of the depths < 10, x.grad]"""
    depths = []
    x = kael.tensor([1.0, 2.0], requires_grad=True)
    y = x
    for _ in range(250):
        y = Callback.apply(y, lambda g: depths.append(_frames_below()))
    _run(m, (y * 3).sum())
    return [len(depths), max(depths) - min(depths) < 10, x.grad.tolist()]


def test_a_kept_gradient_does_not_change(m):
    """backward twice into the same leaves: the .grad tensors the caller kept after the first one
    still hold the first gradients (the second sums into a new tensor, never add_ in place)"""
    rng = random.Random(1516)
    out = []
    for _ in range(4):
        shape = [rng.randint(1, 3) for _ in range(rng.randint(0, 2))]
        x, w = (_tensor(rng, shape, kael.float64).requires_grad_() for _ in range(2))
        _run(m, (x * w).sum())
        kept = [x.grad, w.grad]
        first = [t.tolist() for t in kept]
        _run(m, (x * x * w).sum())
        out.append([first, [t.tolist() for t in kept], x.grad.tolist(), w.grad.tolist()])
    return out


def _random_dag(rng, leaves):
    """A seeded graph over ``leaves``: products of a tensor with itself (one node, two edges to
    the same input), products and sums of two earlier tensors (paths of different lengths to the
    same node), scalings; the root sums a few of the last ones."""
    values = list(leaves)
    for _ in range(rng.randint(6, 14)):
        a = rng.choice(values)
        b = rng.choice(values[: max(1, len(values) // 2)])  # often an early one: a longer and a shorter path
        kind = rng.randrange(4)
        values.append(a * a * 0.5 if kind == 0 else a * b * 0.5 if kind == 1 else a + b if kind == 2 else a * 1.5)
    root = values[-1]
    for t in rng.sample(values[len(leaves):-1], min(2, len(values) - len(leaves) - 1)):
        root = root + t
    return root.sum()


def test_generated_graphs_with_repeated_inputs_and_several_paths(m):
    """24 seeded graphs mixing x * x (two edges from one node to the same input) with several
    paths of different lengths to the same nodes: every leaf's gradient (a node that runs before
    all its contributions arrived, or counts a repeated edge once, gets it wrong)"""
    rng = random.Random(1517)
    out = []
    for _ in range(24):
        shape = [rng.randint(1, 3) for _ in range(rng.randint(0, 2))]
        leaves = [_tensor(rng, shape, kael.float64, -1.0, 1.0).requires_grad_() for _ in range(rng.randint(1, 3))]
        _run(m, _random_dag(rng, leaves))
        out.append([None if x.grad is None else x.grad.tolist() for x in leaves])
    return out


# -- the declared domain (harness/domain.py): the statement's whole input space ------------------

from judge_domain import Domain  # noqa: E402  (the judge copies harness/domain.py beside this file)
from public_test import GradModeProbe, LazyAdd, Pass, Probe  # noqa: E402

DOMAIN = Domain("backward-engine")
SEEDS = ("implicit seed", "explicit 0-d gradient", "a [1, 1] root", "a vector root with its gradient",
         "a vector root without a gradient", "float32 leaves")


def _under_no_grad(m, root):
    """m.backward(root) inside kael.no_grad(): grad mode is still off right after it."""
    with kael.no_grad():
        m.backward(root)
        return kael.is_grad_enabled()


def _vector_root(root, leaves):
    """A root of shape [2] from the same graph: root * (first leaf + 1)."""
    return root * (leaves[0] + 1.0)


@DOMAIN.case("backward", cases=240, classes=SEEDS + (
    "constant operands", "more than 20 operations", "op same input twice", "op expand", "op view",
    "op sum", "unbroadcast through a Function", "second backward into the same leaves",
    "a shared node that logs its runs", "the gradient handed straight to a leaf", "called under no_grad"))
def backward_case(d, m):
    """backward(root, gradient) on a random graph (fan-out, diamonds, x * x, constants, views,
    expand, sums) seeded every way the statement allows (implicit for one element, explicit,
    the scalar rule's error), a Function whose backward leaves broadcasting to the engine, and a
    second backward into the same leaves; every leaf's .grad is in the effects."""
    root, leaves = d.graph(max_ops=24)
    if d.chance(0.25):
        d.label("unbroadcast through a Function")
        b = kael.tensor(d.values(1, "ordinary"), dtype=kael.float64, requires_grad=True)
        b = b.reshape(()) if d.chance(0.5) else b
        leaves = leaves + [b]
        root = LazyAdd.apply(root * leaves[0], b).sum()
    log = []
    if d.chance(0.4):
        d.label("a shared node that logs its runs")
        shared = Probe.apply(GradModeProbe.apply(leaves[0], log) * 1.5, "p", log)
        root = root + (shared * shared).sum() + (shared.exp() * 0.5 + shared).sum()
    how = d.choice(SEEDS + ("the gradient handed straight to a leaf",))
    d.label(how)
    if how == "float32 leaves":
        x = kael.tensor(d.values(3, "ordinary"), dtype=kael.float32, requires_grad=True)
        leaves, root = [x], (x * x * 0.5 + x).sum()
        d.call("backward(root)", m.backward, root, watch=leaves)
    elif how == "implicit seed" and d.chance(0.3):
        d.label("called under no_grad")
        d.call("backward(root) inside kael.no_grad()", _under_no_grad, m, root, watch=leaves)
    elif how == "implicit seed":
        d.call("backward(root)", m.backward, root, watch=leaves)
    elif how == "explicit 0-d gradient":
        g = kael.tensor(d.values(1, "ordinary")[0], dtype=kael.float64)
        d.call("backward(root, gradient)", m.backward, root, g, watch=leaves)
    elif how == "a [1, 1] root":
        d.call("backward(root.reshape(1, 1))", m.backward, root.reshape(1, 1), watch=leaves)
    elif how == "a vector root with its gradient":
        g = kael.tensor(d.values(2, "ordinary"), dtype=kael.float64)
        d.call("backward(vector, gradient)", m.backward, _vector_root(root, leaves), g, watch=leaves)
    elif how == "the gradient handed straight to a leaf":
        g = kael.tensor(d.values(2, "ordinary"), dtype=kael.float64)
        d.call("backward(Pass(leaf), gradient)", m.backward, Pass.apply(leaves[0]), g, watch=leaves)
        g.mul_(0)
        d.note("the leaf's .grad after the caller zeroes its gradient", leaves[0].grad)
    else:
        d.call("backward(vector)", m.backward, _vector_root(root, leaves), watch=leaves)
    d.note("what the logging nodes saw (runs, gradients, grad mode)", log)
    if d.chance(0.3):
        d.label("second backward into the same leaves")
        kept = [leaf.grad for leaf in leaves]
        again = (leaves[0] * leaves[-1] + leaves[0]).sum()
        d.call("backward(another root over the same leaves)", m.backward, again, watch=leaves)
        d.note("the .grad tensors kept from the first backward", kept)


def test_domain_backward(m):
    """backward(root, gradient) on 240 generated graphs over the statement's domain"""
    return DOMAIN.run(m, "backward")
