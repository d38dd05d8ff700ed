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
