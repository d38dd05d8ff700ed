"""Hidden tests of checkpoint: named regression cases, then seeded generated ones."""

import random
import threading

import kael
import kael.nn as nn
import kael.utils
from kael.autograd.graph import saved_tensors_hooks

ATOL = 1e-5

_kael_checkpoint = kael.utils.checkpoint_module.Checkpoint


def _refuse(*args, **kwargs):
    raise RuntimeError("this exercise asks for your own checkpoint: kael.utils.checkpoint was called")


class _Guard:
    def __enter__(self):
        self.saved = _kael_checkpoint.forward, _kael_checkpoint.backward
        _kael_checkpoint.forward = _kael_checkpoint.backward = staticmethod(_refuse)
        self.packed = []
        self.hooks = saved_tensors_hooks(self._pack, lambda t: t)
        self.hooks.__enter__()
        return self

    def _pack(self, t):
        self.packed.append(t.numel() * t.element_size())
        return t

    def __exit__(self, *exc):
        self.hooks.__exit__(*exc)
        _kael_checkpoint.forward, _kael_checkpoint.backward = self.saved
        return False


def _mlp():
    kael.manual_seed(11)
    return nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 8), nn.SiLU(), nn.Linear(8, 3))


def _params_grads(net):
    return [p.grad.tolist() for p in net.parameters()]


def test_mlp_segment_bytes_and_gradients(m):
    """an MLP applied to x through checkpoint: saved bytes (x only: 8 x 4 float32) and x.grad as plain"""
    net = _mlp()
    kael.manual_seed(12)
    x = kael.randn(8, 4, requires_grad=True)
    with _Guard() as guard:
        y = m.checkpoint(net, x)
        saved = list(guard.packed)
        (y * y).sum().backward()
    mine = x.grad.tolist()
    x.grad = None
    (net(x) * net(x)).sum().backward()
    return [saved, mine, x.grad.tolist()]


def test_parameters_inside_the_segment(m):
    """the MLP's parameters are not inputs: checkpoint(lambda h: net(h), x) still saves only x"""
    net = _mlp()
    kael.manual_seed(13)
    x = kael.randn(5, 4, requires_grad=True)
    with _Guard() as guard:
        y = m.checkpoint(lambda h: net(h), x)
        count = len(guard.packed)
    return [count, y.grad_fn.name()]


def test_two_segments_in_a_row(m):
    """checkpoint(g, checkpoint(f, x, w), w): the second segment's input is not a leaf"""
    kael.manual_seed(14)
    x = kael.randn(3, 3, requires_grad=True)
    w = kael.randn(3, 3, requires_grad=True)

    def f(a, b):
        return (a @ b).tanh()

    def g(a, b):
        return (a * b).exp().sum(dim=1)

    with _Guard() as guard:
        y = m.checkpoint(g, m.checkpoint(f, x, w), w)
        count = len(guard.packed)
        y.sum().backward()
    mine = [x.grad.tolist(), w.grad.tolist()]
    x.grad = w.grad = None
    g(f(x, w), w).sum().backward()
    return [count, mine, [x.grad.tolist(), w.grad.tolist()]]


def test_non_leaf_input(m):
    """x = a * 2 (not a leaf) goes into checkpoint: a.grad reaches the leaf below, once"""
    a = kael.tensor([1.0, 2.0], requires_grad=True)
    with _Guard():
        x = a * 2
        m.checkpoint(lambda t: (t * t).sum(), x).backward()
    return a.grad.tolist()


def test_leaf_grad_not_doubled(m):
    """checkpoint(lambda t: t * 3, x).sum().backward() gives x.grad = 3, not 6"""
    x = kael.tensor([1.0, 1.0], requires_grad=True)
    with _Guard():
        m.checkpoint(lambda t: t * 3, x).sum().backward()
    return x.grad.tolist()


def test_under_no_grad(m):
    """under kael.no_grad(): a plain result without grad_fn, the segment called once"""
    calls = []
    x = kael.tensor([1.0, 2.0], requires_grad=True)
    with _Guard(), kael.no_grad():
        y = m.checkpoint(lambda t: calls.append(1) or t.exp(), x)
    return [y.grad_fn is None, len(calls), y.tolist()]


def test_saved_bytes_smaller_than_plain(m):
    """bytes saved by a 6-op segment: checkpointed vs plain"""
    kael.manual_seed(15)
    x = kael.randn(16, 16, requires_grad=True)

    def seg(t):
        return ((t.tanh() * t).exp().sin() * t).sigmoid()

    with _Guard() as guard:
        m.checkpoint(seg, x)
        with_checkpoint = sum(guard.packed)
    packed = []
    with saved_tensors_hooks(lambda t: packed.append(t.numel() * t.element_size()) or t, lambda t: t):
        seg(x)
    return [with_checkpoint, with_checkpoint < sum(packed)]


# -- in-place changes, gradients in the right places, seeded generated segments ----------------------


def test_inplace_change_after_forward_is_caught(m):
    """an input changed in place (under no_grad) after checkpoint's forward: backward raises
    (the inputs are saved tensors, version-checked, not plain attributes)"""
    x = kael.tensor([1.0, 2.0], requires_grad=True)
    with _Guard():
        y = m.checkpoint(lambda t: (t * t).sum(), x)
        with kael.no_grad():
            x.mul_(3)
        try:
            y.backward()
        except RuntimeError as exc:
            return ["raised", str(exc)]
    return ["no error", x.grad.tolist()]


_SEGMENT_PIECES = (lambda t: t.tanh(), lambda t: t * t, lambda t: (t * 0.3).exp(), lambda t: t.sin() * 2)


def test_generated_segments(m):
    """30 seeded segments of 1-4 inputs (each requiring grad or not, float32/float64, some of them
    strided views), combined by seeded pieces: the gradient of every input (None where none is
    due), in its place and dtype"""
    rng = random.Random(1313)
    out = []
    for _ in range(30):
        dtype = rng.choice([kael.float32, kael.float64])
        n = rng.randint(1, 4)
        needs = [rng.random() < 0.6 for _ in range(n)]
        inputs = []
        for need in needs:
            base = kael.tensor([round(rng.uniform(-1.5, 1.5), 3) for _ in range(6)], dtype=dtype)
            t = base[1::2].detach() if rng.random() < 0.4 else base[:3]
            inputs.append(t.detach().requires_grad_(need))
        pieces = [rng.choice(_SEGMENT_PIECES) for _ in range(n)]

        def segment(*xs, pieces=pieces):
            total = 0
            for x, piece in zip(xs, pieces):
                total = total + piece(x)
            return total

        coef = kael.tensor([1.0, -2.0, 0.5], dtype=dtype)
        with _Guard():
            y = m.checkpoint(segment, *inputs)
            if y.requires_grad:
                (y * coef).sum().backward()
        out.append([y.requires_grad, str(y.dtype)]
                   + [None if t.grad is None else [str(t.grad.dtype), t.grad.tolist()] for t in inputs])
    return out


# -- regression cases found by `make mutation` ---------------------------------------------------------


def test_input_the_segment_does_not_use(m):
    """checkpoint(lambda a, b: a * 2, x, y) with y requiring grad but unused: x.grad = 2, y.grad
    stays None"""
    x = kael.tensor([1.0, 2.0], requires_grad=True)
    y = kael.tensor([3.0], requires_grad=True)
    with _Guard():
        m.checkpoint(lambda a, b: a * 2, x, y).sum().backward()
    return [x.grad.tolist(), y.grad is None]


# -- a second thread -----------------------------------------------------------------------------------


def test_a_checkpoint_in_another_thread_during_recompute(m):
    """while this checkpoint recomputes its segment in backward, a second thread runs a whole
    checkpoint of another segment, forward and backward (joined, no timeout): each input gets
    its own gradient"""
    other, calls = [], []

    def run_other():
        try:
            z = kael.tensor([0.5, 1.5], dtype=kael.float64, requires_grad=True)
            m.checkpoint(lambda t: (t * 0.5).exp() * t, z).sum().backward()
            other.append(z.grad.tolist())
        except Exception as exc:
            other.append(f"{type(exc).__name__}: {exc}")

    def segment(t):
        calls.append(1)
        if len(calls) == 2:  # the recompute, in backward
            thread = threading.Thread(target=run_other)
            thread.start()
            thread.join()
        return t.sin() * t

    x = kael.tensor([0.25, -1.0, 2.0], dtype=kael.float64, requires_grad=True)
    m.checkpoint(segment, x).sum().backward()
    return [x.grad.tolist(), other]


# -- grad mode after backward, backward called directly ---------------------------------------------


def test_hooks_later_in_the_backward_see_grad_mode_off(m):
    """a = x * w goes into checkpoint(lambda t, v: t.sin() * v, a, w): a tensor hook on a, a node
    hook on a.grad_fn and a hook on the leaf x run after CheckpointBackward in the same backward
    and see grad mode off (the engine's), and it is on again after backward; x.grad and w.grad"""
    x = kael.tensor([0.5, -1.0, 2.0], dtype=kael.float64, requires_grad=True)
    w = kael.tensor([1.5, 0.25, -0.5], dtype=kael.float64, requires_grad=True)
    seen = []
    a = x * w
    a.register_hook(lambda g: seen.append(["tensor hook on a", kael.is_grad_enabled()]))
    a.grad_fn.register_hook(lambda gi, go: seen.append(["node hook on a.grad_fn", kael.is_grad_enabled()]))
    x.register_hook(lambda g: seen.append(["hook on the leaf x", kael.is_grad_enabled()]))
    with _Guard():
        m.checkpoint(lambda t, v: t.sin() * v, a, w).sum().backward()
    return [seen, kael.is_grad_enabled(), x.grad.tolist(), w.grad.tolist()]


class _TestCtx:
    """The ctx a test builds to call forward and backward directly (as PyTorch's FunctionCtx
    does): ``needs_input_grad`` as given, ``save_for_backward`` keeps the tensors,
    ``saved_tensors`` gives them back, other attributes are plain."""

    def __init__(self, needs_input_grad):
        self.needs_input_grad = tuple(needs_input_grad)
        self._kept = ()

    def save_for_backward(self, *tensors):
        self._kept = tensors

    def mark_non_differentiable(self, *tensors):
        pass

    def set_materialize_grads(self, value):
        pass

    @property
    def saved_tensors(self):
        return self._kept


def _direct_call(m, fn, xs, g):
    """``Checkpoint.forward(ctx, fn, *xs)`` then ``Checkpoint.backward(ctx, g)`` called directly,
    under no_grad as the engine runs them, with a ctx built here (needs_input_grad: False for fn,
    then whether each input requires grad): [what backward returned, as a tuple the way the
    engine reads it, the grad mode right after backward returned]."""
    ctx = _TestCtx((False,) + tuple(bool(x.requires_grad) for x in xs))
    with kael.no_grad():
        m.Checkpoint.forward(ctx, fn, *[x.detach() for x in xs])
        grads = m.Checkpoint.backward(ctx, g)
        mode = kael.is_grad_enabled()
    return [grads if isinstance(grads, tuple) else (grads,), mode]


def test_backward_called_directly(m):
    """Checkpoint.forward(ctx, fn, x, c, w) and Checkpoint.backward(ctx, g) called directly under
    no_grad with a ctx of the test's (needs_input_grad (False, True, False, True): c is a
    constant): (None, x's gradient, None, w's gradient), and grad mode still off afterwards"""
    x = kael.tensor([[0.5, -1.0], [2.0, 0.25]], dtype=kael.float64, requires_grad=True)
    c = kael.tensor([[1.5, 0.5], [-0.5, 2.0]], dtype=kael.float64)
    w = kael.tensor([[0.25, 1.0], [-1.0, 0.75]], dtype=kael.float64, requires_grad=True)
    g = kael.tensor([[1.0, -2.0], [0.5, 3.0]], dtype=kael.float64)
    with _Guard():
        grads, mode = _direct_call(m, lambda a, b, v: (a * b).tanh() @ v, [x, c, w], g)
    return [[None if t is None else t.tolist() for t in grads], mode, x.grad is None, w.grad is None]


# -- the declared domain (harness/domain.py): the statement's whole input space ------------------

from judge_domain import Domain  # noqa: E402  (the judge copies harness/domain.py beside this file)

DOMAIN = Domain("checkpoint")
SEGMENT_OPS = ("mul", "add", "tanh", "exp", "sin", "square", "sum into a scalar", "matmul")


def _segment(ops, modes, weight=None):
    """A segment that applies ``ops`` to its inputs (float ones of one shape [r, c], and maybe an
    int64 index of rows, which it gathers by) and records the grad mode of each call in
    ``modes``; ``weight``, when given, is a parameter used inside (not an input)."""
    def fn(*all_inputs):
        modes.append(kael.is_grad_enabled())
        xs = [x for x in all_inputs if x.dtype.is_floating_point]
        index = [x for x in all_inputs if not x.dtype.is_floating_point]
        y = xs[0][index[0]] if index else xs[0]
        for x in xs[1:]:
            y = y + x * 0.5  # every input is used
        if weight is not None:
            y = y * weight
        for i, op in enumerate(ops):
            other = xs[i % len(xs)]
            y = {"mul": lambda: y * other, "add": lambda: y + other, "tanh": lambda: y.tanh(),
                 "exp": lambda: (y * 0.25).exp(), "sin": lambda: y.sin(), "square": lambda: y * y,
                 "sum into a scalar": lambda: y.sum() * other,
                 "matmul": lambda: y @ other.transpose(0, 1) @ other}[op]()
        return y
    return fn


def _inputs(d, shape):
    """1-3 inputs of one shape: leaves that require grad, constants, and inputs made by an op
    (not leaves; the graph below must get their gradient once)."""
    out, leaves = [], []
    for _ in range(d.integer(1, 3)):
        kind = d.choice(("leaf", "leaf", "constant", "not a leaf"))
        d.label(f"input {kind}")
        x = d.tensor(shape, d.dtype(("float64",)), mix=d.choice(("ordinary", "zeros", "ties")),
                     requires_grad=kind != "constant")
        leaves.append(x)
        out.append(x * 1.5 if kind == "not a leaf" else x)
    return out, leaves


@DOMAIN.case("checkpoint", cases=200, classes=(
    "input leaf", "input constant", "input not a leaf", "op matmul", "op sum into a scalar",
    "op exp", "under no_grad", "a second checkpoint on top", "upstream not ones",
    "an int64 index input", "a parameter inside the segment", "backward called directly"))
def checkpoint_case(d, m):
    """checkpoint(fn, *inputs) on random segments of 1-5 ops over 1-3 inputs of one shape [r, c]
    (leaves, constants, inputs made by an op): the result, what the forward saves, the grad
    mode inside fn each time it runs, the inputs' gradients after a backward with a drawn
    upstream gradient and the grad mode the inputs' hooks see in that backward (after the
    checkpoint's node); sometimes a second checkpoint on top, or the call under no_grad; now and
    then forward and backward called directly with a ctx of the test's."""
    shape = (d.integer(1, 3), d.integer(1, 3))
    ops = [d.choice(SEGMENT_OPS, "op") for _ in range(d.integer(1, 5))]
    xs, leaves = _inputs(d, shape)
    if d.chance(0.2):
        d.label("an int64 index input")
        xs.append(kael.tensor([d.integer(0, shape[0] - 1) for _ in range(shape[0])], dtype=kael.int64))
    weight = None
    if d.chance(0.25):
        d.label("a parameter inside the segment")
        # watched in the backward: the statement says the checkpoint leaves its .grad alone
        weight = d.tensor(shape[1:], kael.float64, mix="ordinary", requires_grad=True)
    modes, hook_modes = [], []
    fn = _segment(ops, modes, weight)
    d.inputs.append(f"ops {ops}")
    for x in xs:  # they run later in the backward than the checkpoint's node: grad mode is off there
        if x.requires_grad:
            x.register_hook(lambda g: hook_modes.append(kael.is_grad_enabled()))
    if d.chance(0.15):
        d.label("under no_grad")
        d.call("checkpoint(fn, *inputs) under no_grad", _no_grad_call, m, fn, xs, watch=leaves)
        d.note("grad mode inside fn", modes)
        return
    y = d.call("what checkpoint(fn, *inputs) saves, and its result", _saved_and_result, m, fn, xs, watch=leaves)
    if d.chance(0.25) and isinstance(y, list) and isinstance(y[1], kael.Tensor):
        d.label("a second checkpoint on top")
        y = d.call("checkpoint(tanh, y)", m.checkpoint, lambda t: t.tanh() * 2.0, y[1], watch=leaves)
    elif isinstance(y, list):
        y = y[1]
    if isinstance(y, kael.Tensor) and y.requires_grad:
        g = d.like(y, mix="ordinary") if d.chance(0.6) else kael.ones_like(y)
        if g is not None and d.chance(0.6):
            d.label("upstream not ones")
        d.call("y.backward(g)", _backward_guarded, y, g, watch=leaves + ([weight] if weight is not None else []))
        d.note("grad mode in the inputs' hooks, later in that backward", hook_modes)
    d.note("grad mode inside fn, call by call", modes)
    if isinstance(y, kael.Tensor) and y.requires_grad and d.chance(0.3):
        d.label("backward called directly")
        del modes[:]
        g = d.like(y, mix="ordinary")
        d.call("Checkpoint.forward(ctx, fn, *inputs), then Checkpoint.backward(ctx, g), called directly "
               "under no_grad with a ctx of the test's: the gradients, the grad mode after backward",
               _direct_guarded, m, fn, xs, g, watch=leaves)
        d.note("grad mode inside fn in the direct calls", modes)


def _saved_and_result(m, fn, xs):
    """[the shapes save_for_backward packs during the forward, the result]"""
    with _Guard() as guard:
        y = m.checkpoint(fn, *xs)
    return [[list(s) if isinstance(s, (list, tuple)) else s for s in guard.packed], y]


def _backward_guarded(y, g):
    with _Guard():
        y.backward(g)


def _direct_guarded(m, fn, xs, g):
    with _Guard():
        return _direct_call(m, fn, xs, g)


def _no_grad_call(m, fn, xs):
    with _Guard(), kael.no_grad():
        return m.checkpoint(fn, *xs)


def test_domain_checkpoint(m):
    """checkpoint(fn, *inputs) on 200 generated segments over the statement's domain"""
    return DOMAIN.run(m, "checkpoint")
