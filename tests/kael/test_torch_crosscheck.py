"""Gradients of composite functions against PyTorch's, when PyTorch is installed (skipped
otherwise: it is not one of the project's dependencies)."""

import pytest

torch = pytest.importorskip("torch")

import kael  # noqa: E402
import kael.nn.functional as F  # noqa: E402

TF = torch.nn.functional


def kt(values, requires_grad=True):
    return kael.tensor(values, dtype=kael.float64, requires_grad=requires_grad)


def tt(values, requires_grad=True):
    return torch.tensor(values, dtype=torch.float64, requires_grad=requires_grad)


def random_values(g, *shape):
    return kael.randn(*shape, dtype=kael.float64, generator=g).tolist()


def assert_same(kael_tensor, torch_tensor, tol=1e-10):
    got = kael_tensor.tolist()
    want = torch_tensor.detach().tolist()
    flat_got, flat_want = _flat(got), _flat(want)
    assert len(flat_got) == len(flat_want)
    for a, b in zip(flat_got, flat_want):
        assert abs(a - b) <= tol * (1 + abs(b)), (got, want)


def _flat(v):
    if isinstance(v, list):
        return [x for item in v for x in _flat(item)]
    return [v]


def mlp(lib, x, w1, b1, w2, b2, target):
    fn = F if lib is kael else TF
    h = fn.gelu(fn.linear(x, w1, b1), approximate="tanh")
    logits = fn.silu(h) @ w2.T + b2
    return fn.cross_entropy(logits, target)


def attention(lib, q, k, v):
    scores = (q @ k.transpose(-2, -1)) / 2.0
    return (scores.softmax(-1) @ v).tanh().sum()


def layer_norm_mse(lib, x, gamma, y):
    fn = F if lib is kael else TF
    mu = x.mean(-1, keepdim=True)
    var = ((x - mu) ** 2).mean(-1, keepdim=True)
    out = (x - mu) / (var + 1e-5).sqrt() * gamma
    return fn.mse_loss(out, y)


def logistic(lib, x, w, t):
    fn = F if lib is kael else TF
    z = (x @ w).clamp(-3.0, 3.0)
    return fn.binary_cross_entropy_with_logits(z, t) + (lib.maximum(w, w * 0.5) ** 2).sum() * 0.01


def gather_and_reduce(lib, x, w):
    picked = x[[0, 2, 2, 1]][:, 1:] * w
    values = picked.max(1)[0] if lib is torch else picked.max(1).values
    return lib.logsumexp(lib.cat([values, picked.amin(0)]), 0) + lib.where(x > 0, x, x.exp() - 1).sum()


CASES = {
    "mlp": (mlp, [(5, 3), (4, 3), (4,), (2, 4), (2,)], "target"),
    "attention": (attention, [(2, 3, 4), (2, 5, 4), (2, 5, 3)], None),
    "layer_norm_mse": (layer_norm_mse, [(3, 4), (4,), (3, 4)], None),
    "logistic": (logistic, [(6, 3), (3,), (6,)], "probabilities"),
    "gather_and_reduce": (gather_and_reduce, [(3, 4), (3,)], None),
}


@pytest.mark.parametrize("name", list(CASES))
def test_gradients_match_pytorch(name):
    fn, shapes, extra = CASES[name]
    g = kael.Generator(sum(map(ord, name)))
    values = [random_values(g, *s) for s in shapes]
    if extra == "probabilities":
        values[-1] = kael.rand(*shapes[-1], dtype=kael.float64, generator=g).tolist()
    ks = [kt(v) for v in values]
    ts = [tt(v) for v in values]
    if extra == "target":
        ks.append(kael.tensor([0, 1, 1, 0, 1]))
        ts.append(torch.tensor([0, 1, 1, 0, 1]))
    k_out = fn(kael, *ks)
    t_out = fn(torch, *ts)
    assert_same(k_out, t_out)
    k_out.backward()
    t_out.backward()
    for k, t in zip(ks, ts):
        if isinstance(t, torch.Tensor) and t.requires_grad:
            assert_same(k.grad, t.grad)


def test_broadcast_matmul_gradients_match_pytorch():
    g = kael.Generator(5)
    for sa, sb in [((3,), (2, 3, 4)), ((2, 1, 2, 3), (3, 3, 2)), ((2, 3), (3,)), ((4,), (4,))]:
        a_vals, b_vals = random_values(g, *sa), random_values(g, *sb)
        ka, kb, ta, tb = kt(a_vals), kt(b_vals), tt(a_vals), tt(b_vals)
        k_out, t_out = ka @ kb, ta @ tb
        assert_same(k_out, t_out)
        weights = random_values(g, *t_out.shape) if t_out.dim() else 1.0
        (k_out * kael.tensor(weights, dtype=kael.float64)).sum().backward()
        (t_out * torch.tensor(weights, dtype=torch.float64)).sum().backward()
        assert_same(ka.grad, ta.grad)
        assert_same(kb.grad, tb.grad)


@pytest.mark.parametrize("make", [
    lambda lib, ps: lib.optim.SGD(ps, lr=0.1, momentum=0.9, weight_decay=0.01),
    lambda lib, ps: lib.optim.SGD(ps, lr=0.1, momentum=0.8, nesterov=True),
    lambda lib, ps: lib.optim.SGD(ps, lr=0.05, momentum=0.5, dampening=0.2),
    lambda lib, ps: lib.optim.Adam(ps, lr=0.05),
    lambda lib, ps: lib.optim.Adam(ps, lr=0.01, betas=(0.8, 0.95), eps=1e-6, weight_decay=0.1),
], ids=["sgd momentum wd", "sgd nesterov", "sgd dampening", "adam", "adam wd"])
def test_optimizer_steps_match_pytorch(make):
    g = kael.Generator(8)
    w_vals, x_vals = random_values(g, 3, 2), random_values(g, 4, 3)
    kw, tw = kt(w_vals), tt(w_vals)
    kx, tx = kt(x_vals, False), tt(x_vals, False)
    kopt, topt = make(kael, [kw]), make(torch, [tw])
    for _ in range(5):
        for lib, w, x, opt in ((kael, kw, kx, kopt), (torch, tw, tx, topt)):
            opt.zero_grad()
            ((x @ w).tanh() ** 2).sum().backward()
            opt.step()
        assert_same(kw, tw)


def test_cross_entropy_variants_match_pytorch():
    g = kael.Generator(6)
    vals = random_values(g, 4, 3)
    probs = kael.randn(4, 3, dtype=kael.float64, generator=g).softmax(1).tolist()
    target = [2, -100, 0, 2]
    for kwargs in ({}, {"reduction": "sum"}, {"reduction": "none"}):
        ka, ta = kt(vals), tt(vals)
        k_out = F.cross_entropy(ka, kael.tensor(target), **kwargs)
        t_out = TF.cross_entropy(ta, torch.tensor(target), **kwargs)
        assert_same(k_out, t_out)
        k_out.sum().backward()
        t_out.sum().backward()
        assert_same(ka.grad, ta.grad)
        ka, ta = kt(vals), tt(vals)
        k_out = F.cross_entropy(ka, kt(probs, False), **kwargs)
        t_out = TF.cross_entropy(ta, tt(probs, False), **kwargs)
        assert_same(k_out, t_out)
        k_out.sum().backward()
        t_out.sum().backward()
        assert_same(ka.grad, ta.grad)
