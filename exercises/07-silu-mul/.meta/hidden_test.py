"""Hidden tests of silu_mul."""

import kael
import kael.nn.functional as F

RTOL = 1e-6
ATOL = 1e-9


def _rand(seed, *shape, dtype=kael.float64):
    kael.manual_seed(seed)
    return kael.randn(*shape, dtype=dtype).requires_grad_()


def test_forward_matches_unfused(m):
    """silu_mul(g, u) equals F.silu(g) * u on [3, 5]"""
    g, u = _rand(1, 3, 5), _rand(2, 3, 5)
    return [m.silu_mul(g, u).tolist(), (F.silu(g) * u).tolist()]


def test_gradients_match_unfused(m):
    """the gradients of (silu_mul(g, u) * w).sum() equal those of the unfused computation"""
    out = []
    for fn in (m.silu_mul, lambda a, b: F.silu(a) * b):
        g, u = _rand(3, 2, 6), _rand(4, 2, 6)
        w = _rand(5, 2, 6).detach()
        (fn(g, u) * w).sum().backward()
        out.append([g.grad.tolist(), u.grad.tolist()])
    return out


def test_large_gates(m):
    """gates of +-30: finite gradients (sigmoid saturates cleanly)"""
    g = kael.tensor([-30.0, 30.0], dtype=kael.float64, requires_grad=True)
    u = kael.tensor([2.0, 2.0], dtype=kael.float64, requires_grad=True)
    m.silu_mul(g, u).sum().backward()
    return [g.grad.tolist(), u.grad.tolist()]


def test_gradcheck_other_shapes(m):
    """gradcheck on [6] and [2, 3, 2] inputs"""
    return [kael.autograd.gradcheck(m.SiluMul.apply, (_rand(6, 6), _rand(7, 6))),
            kael.autograd.gradcheck(m.SiluMul.apply, (_rand(8, 2, 3, 2), _rand(9, 2, 3, 2)))]


def test_saved_tensors_are_the_inputs(m):
    """the two packed tensors share storage with gate and up, in that order"""
    packed = []
    gate, up = _rand(10, 3, 4), _rand(11, 3, 4)
    with kael.autograd.graph.saved_tensors_hooks(lambda t: packed.append(t) or t, lambda t: t):
        m.silu_mul(gate, up)
    return [len(packed)] + [t.untyped_storage() is x.untyped_storage() for t, x in zip(packed, (gate, up))]


def test_fused_saves_less_than_unfused(m):
    """bytes saved: fused silu_mul vs F.silu(g) * u, for [16, 64] float32"""
    def saved_bytes(fn):
        sizes = []
        gate = kael.ones(16, 64, requires_grad=True)
        up = kael.ones(16, 64, requires_grad=True)
        with kael.autograd.graph.saved_tensors_hooks(lambda t: sizes.append(t.nbytes) or t, lambda t: t):
            fn(gate, up)
        return sum(sizes)

    return [saved_bytes(m.silu_mul), saved_bytes(lambda a, b: F.silu(a) * b)]


def test_backward_leaves_inputs_unchanged(m):
    """after backward, gate and up hold their forward values (no in-place work on saved tensors)"""
    gate = kael.tensor([0.5, -1.5, 2.0], dtype=kael.float64, requires_grad=True)
    up = kael.tensor([1.0, 2.0, -1.0], dtype=kael.float64, requires_grad=True)
    m.silu_mul(gate, up).sum().backward()
    return [gate.tolist(), up.tolist()]


def test_inplace_change_after_forward_is_caught(m):
    """gate changed in place (under no_grad) between forward and backward: backward raises"""
    gate = kael.tensor([0.5, -1.5], dtype=kael.float64, requires_grad=True)
    up = kael.tensor([1.0, 2.0], dtype=kael.float64, requires_grad=True)
    y = m.silu_mul(gate, up)
    with kael.no_grad():
        gate.mul_(2)
    y.sum().backward()
    return gate.grad.tolist()


def test_only_up_requires_grad(m):
    """silu_mul(constant gate, up): up.grad = silu(gate), gate.grad stays None"""
    gate = kael.tensor([1.0, -1.0], dtype=kael.float64)
    up = kael.tensor([3.0, 4.0], dtype=kael.float64, requires_grad=True)
    m.silu_mul(gate, up).sum().backward()
    return [up.grad.tolist(), gate.grad is None]


def test_swiglu_block(m):
    """a SwiGLU block silu_mul(x @ wg, x @ wu) @ wd: gradients of the three weights"""
    x = _rand(12, 4, 3).detach()
    wg, wu, wd = _rand(13, 3, 5), _rand(14, 3, 5), _rand(15, 5, 2)
    y = m.silu_mul(x @ wg, x @ wu) @ wd
    (y * y).mean().backward()
    return [wg.grad.tolist(), wu.grad.tolist(), wd.grad.tolist()]
