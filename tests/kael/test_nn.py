"""kael.nn and kael.optim: the Module API, SGD and Adam against hand-computed steps, and a
two-moons classifier trained to at least 97% training accuracy on whichever backend is active."""

import math
import pickle

import pytest

import kael
import kael.nn as nn
import kael.nn.functional as F

F64 = kael.float64


def close(got, want, tol=1e-9):
    assert len(got) == len(want), (got, want)
    for g, w in zip(got, want):
        assert abs(g - w) <= tol * (1 + abs(w)), (got, want)


# -- Module API ------------------------------------------------------------------------------------------


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = nn.Parameter(kael.ones(1))
        self.fc = nn.Linear(2, 3)
        self.act = nn.GELU(approximate="tanh")
        self.head = nn.Sequential(nn.Linear(3, 2, bias=False), nn.Sigmoid())
        self.note = "not a parameter"

    def forward(self, x):
        return self.head(self.act(self.fc(x))) * self.scale


def test_parameters_named_parameters_and_children():
    net = Net()
    names = [n for n, _ in net.named_parameters()]
    assert names == ["scale", "fc.weight", "fc.bias", "head.0.weight"]
    params = list(net.parameters())
    assert len(params) == 4 and all(isinstance(p, nn.Parameter) for p in params)
    assert all(p.requires_grad and p.is_leaf for p in params)
    assert params[1] is net.fc.weight and net.fc.weight.shape == (3, 2) and net.fc.bias.shape == (3,)
    assert [type(c).__name__ for c in net.children()] == ["Linear", "GELU", "Sequential"]
    assert [n for n, _ in net.named_children()] == ["fc", "act", "head"]
    assert [n for n, _ in net.named_modules()] == ["", "fc", "act", "head", "head.0", "head.1"]
    assert net.note == "not a parameter" and "note" not in dict(net.named_parameters())
    assert [n for n, _ in net.named_parameters(recurse=False)] == ["scale"]
    with pytest.raises(AttributeError, match="'Net' object has no attribute 'missing'"):
        net.missing


def test_shared_parameter_is_listed_once():
    lin = nn.Linear(2, 2)
    seq = nn.Sequential(lin, nn.ReLU(), lin)
    assert len(list(seq.parameters())) == 2


def test_forward_and_zero_grad():
    net = Net()
    out = net(kael.ones(4, 2))
    assert out.shape == (4, 2) and out.grad_fn is not None
    out.sum().backward()
    assert all(p.grad is not None and p.grad.shape == p.shape for p in net.parameters())
    net.zero_grad()
    assert all(p.grad is None for p in net.parameters())
    net(kael.ones(1, 2)).sum().backward()
    net.zero_grad(set_to_none=False)
    assert all(p.grad is not None and p.grad.abs().sum().item() == 0.0 for p in net.parameters())


def test_train_and_eval_reach_every_submodule():
    net = Net()
    assert net.training and all(m.training for m in net.modules())
    assert net.eval() is net
    assert not net.training and not any(m.training for m in net.modules())
    net.train()
    assert all(m.training for m in net.modules())
    drop = nn.Dropout(0.5)
    x = kael.ones(100)
    kael.manual_seed(0)
    y = drop(x)
    assert set(y.tolist()) <= {0.0, 2.0} and 0 < y.sum().item() < 200
    assert drop.eval()(x) is x


def test_state_dict_round_trip():
    kael.manual_seed(1)
    a = Net()
    b = Net()
    sd = a.state_dict()
    assert list(sd) == ["scale", "fc.weight", "fc.bias", "head.0.weight"]
    assert all(not t.requires_grad for t in sd.values())
    assert sd["fc.weight"].untyped_storage() is a.fc.weight.untyped_storage()  # detached, shared
    assert b.fc.weight.tolist() != a.fc.weight.tolist()
    assert b.load_state_dict(sd) == ([], [])
    for (_, p), (_, q) in zip(a.named_parameters(), b.named_parameters()):
        assert p.tolist() == q.tolist() and p.untyped_storage() is not q.untyped_storage()
    assert b.fc.weight.requires_grad and b.fc.weight.is_leaf
    x = kael.randn(3, 2)
    assert a(x).tolist() == b(x).tolist()
    sd2 = pickle.loads(pickle.dumps(sd))
    assert sd2["fc.bias"].tolist() == a.fc.bias.tolist()


def test_load_state_dict_errors_name_the_keys_and_shapes():
    net = Net()
    sd = net.state_dict()
    with pytest.raises(RuntimeError, match="Error.s. in loading state_dict for Net: missing keys: fc.bias, head.0.weight"):
        net.load_state_dict({"scale": sd["scale"], "fc.weight": sd["fc.weight"]})
    with pytest.raises(RuntimeError, match="unexpected keys: extra"):
        net.load_state_dict({**sd, "extra": kael.zeros(1)})
    with pytest.raises(RuntimeError, match=r"size mismatch for fc.bias: copying a param with shape \[4\], "
                                           r"the shape in current model is \[3\]"):
        net.load_state_dict({**sd, "fc.bias": kael.zeros(4)})
    missing, unexpected = net.load_state_dict({"scale": kael.tensor([2.0]), "extra": kael.zeros(1)}, strict=False)
    assert missing == ["fc.weight", "fc.bias", "head.0.weight"] and unexpected == ["extra"]
    assert net.scale.tolist() == [2.0]


def test_module_repr():
    assert repr(nn.Linear(2, 3)) == "Linear(in_features=2, out_features=3, bias=True)"
    assert repr(nn.Sequential(nn.Linear(2, 3, bias=False), nn.ReLU())) == (
        "Sequential(\n"
        "  (0): Linear(in_features=2, out_features=3, bias=False)\n"
        "  (1): ReLU()\n"
        ")"
    )
    assert repr(Net()) == (
        "Net(\n"
        "  (fc): Linear(in_features=2, out_features=3, bias=True)\n"
        "  (act): GELU(approximate='tanh')\n"
        "  (head): Sequential(\n"
        "    (0): Linear(in_features=3, out_features=2, bias=False)\n"
        "    (1): Sigmoid()\n"
        "  )\n"
        ")"
    )
    assert repr(nn.Parameter(kael.tensor([1.0, 2.0]))) == "Parameter containing:\ntensor([1., 2.], requires_grad=True)"


def test_layers_and_losses_match_functional():
    kael.manual_seed(3)
    x = kael.randn(4, 3)
    for module, fn in [(nn.ReLU(), F.relu), (nn.Tanh(), kael.tanh), (nn.Sigmoid(), F.sigmoid),
                       (nn.GELU(), F.gelu), (nn.SiLU(), F.silu), (nn.Identity(), lambda t: t)]:
        assert module(x).tolist() == fn(x).tolist()
    target = kael.tensor([0, 2, 1, 1])
    assert nn.CrossEntropyLoss()(x, target).item() == F.cross_entropy(x, target).item()
    assert nn.CrossEntropyLoss(reduction="sum")(x, target).item() == F.cross_entropy(x, target, reduction="sum").item()
    assert nn.MSELoss()(x, x * 2).item() == F.mse_loss(x, x * 2).item()
    assert nn.NLLLoss()(x.log_softmax(1), target).item() == F.nll_loss(x.log_softmax(1), target).item()
    t = kael.rand(4, 3)
    assert nn.BCEWithLogitsLoss()(x, t).item() == F.binary_cross_entropy_with_logits(x, t).item()
    lin = nn.Linear(3, 5)
    assert lin(x).tolist() == F.linear(x, lin.weight, lin.bias).tolist()


def test_linear_init_is_seeded_and_bounded():
    kael.manual_seed(42)
    a = nn.Linear(4, 3)
    kael.manual_seed(42)
    b = nn.Linear(4, 3)
    assert a.weight.tolist() == b.weight.tolist() and a.bias.tolist() == b.bias.tolist()
    bound = 1 / math.sqrt(4)
    assert all(abs(v) <= bound for row in a.weight.tolist() for v in row)
    assert all(abs(v) <= bound for v in a.bias.tolist())
    assert a.weight._version >= 1 and a.weight.grad_fn is None  # written in place under no_grad


def test_init_functions():
    t = kael.zeros(3, 4, requires_grad=True)
    nn.init.constant_(t, 0.5)
    assert t.tolist() == [[0.5] * 4] * 3 and t.requires_grad and t.grad_fn is None
    nn.init.zeros_(t)
    assert t.sum().item() == 0.0
    nn.init.ones_(t)
    assert t.sum().item() == 12.0
    nn.init.uniform_(t, -0.1, 0.1)
    assert all(-0.1 <= v <= 0.1 for row in t.tolist() for v in row)
    kael.manual_seed(0)
    nn.init.xavier_uniform_(t)
    bound = math.sqrt(6 / 7)
    assert all(abs(v) <= bound for row in t.tolist() for v in row)
    nn.init.kaiming_normal_(t, nonlinearity="relu")
    nn.init.normal_(t, 1.0, 0.01)
    assert all(0.9 < v < 1.1 for row in t.tolist() for v in row)
    assert nn.init.calculate_gain("relu") == math.sqrt(2.0)
    with pytest.raises(ValueError, match="fewer than 2 dimensions"):
        nn.init.xavier_uniform_(kael.zeros(3))


# -- optimizers against hand-computed steps -------------------------------------------------------------

C = [0.5, 3.0]  # the constant gradient of loss = sum(p * C)


def linear_loss_step(p, opt):
    opt.zero_grad()
    (p * kael.tensor(C, dtype=F64)).sum().backward()
    opt.step()


def test_sgd_plain_step():
    p = kael.tensor([1.0, -2.0], dtype=F64, requires_grad=True)
    opt = kael.optim.SGD([p], lr=0.1)
    linear_loss_step(p, opt)
    close(p.tolist(), [0.95, -2.3])
    assert p.is_leaf and p.grad_fn is None and p.requires_grad and p._version == 1


def test_sgd_momentum():
    p = kael.tensor([1.0, -2.0], dtype=F64, requires_grad=True)
    opt = kael.optim.SGD([p], lr=0.1, momentum=0.9)
    linear_loss_step(p, opt)  # buf = g
    close(p.tolist(), [0.95, -2.3])
    linear_loss_step(p, opt)  # buf = 0.9 * g + g = 1.9 g
    close(p.tolist(), [0.95 - 0.19 * 0.5, -2.3 - 0.19 * 3.0])
    linear_loss_step(p, opt)  # buf = 0.9 * 1.9 g + g = 2.71 g
    close(p.tolist(), [0.855 - 0.271 * 0.5, -2.87 - 0.271 * 3.0])


def test_sgd_weight_decay():
    p = kael.tensor([1.0, -2.0], dtype=F64, requires_grad=True)
    opt = kael.optim.SGD([p], lr=0.1, weight_decay=0.1)
    linear_loss_step(p, opt)  # g = C + 0.1 p = [0.6, 2.8]
    close(p.tolist(), [0.94, -2.28])


def test_sgd_momentum_weight_decay_dampening_nesterov_against_a_reference():
    def reference(p, steps, lr, momentum, dampening, wd, nesterov):
        buf = None
        for _ in range(steps):
            g = [pi for pi in p]  # loss = sum(p**2) / 2: grad = p
            g = [gi + wd * pi for gi, pi in zip(g, p)]
            if momentum:
                buf = list(g) if buf is None else [momentum * b + (1 - dampening) * gi for b, gi in zip(buf, g)]
                g = [gi + momentum * b for gi, b in zip(g, buf)] if nesterov else buf
            p = [pi - lr * gi for pi, gi in zip(p, g)]
        return p

    for kw in [dict(momentum=0.9, dampening=0.0, wd=0.01, nesterov=False),
               dict(momentum=0.5, dampening=0.3, wd=0.0, nesterov=False),
               dict(momentum=0.8, dampening=0.0, wd=0.1, nesterov=True)]:
        p = kael.tensor([1.0, -2.0, 0.5], dtype=F64, requires_grad=True)
        opt = kael.optim.SGD([p], lr=0.2, momentum=kw["momentum"], dampening=kw["dampening"],
                             weight_decay=kw["wd"], nesterov=kw["nesterov"])
        for _ in range(4):
            opt.zero_grad()
            ((p * p).sum() / 2).backward()
            opt.step()
        close(p.tolist(), reference([1.0, -2.0, 0.5], 4, 0.2, **kw))


def test_adam_first_steps_by_hand():
    p = kael.tensor([1.0, -2.0], dtype=F64, requires_grad=True)
    opt = kael.optim.Adam([p], lr=0.1)
    linear_loss_step(p, opt)
    # m = 0.1 g, v = 0.001 g^2; bias-corrected m_hat = g, v_hat = g^2: the step is lr * g / (|g| + eps)
    close(p.tolist(), [1.0 - 0.1 * 0.5 / (0.5 + 1e-8), -2.0 - 0.1 * 3.0 / (3.0 + 1e-8)], 1e-12)
    linear_loss_step(p, opt)
    close(p.tolist(), [0.8, -2.2], 1e-7)  # a constant gradient keeps m_hat = g, v_hat = g^2


def test_adam_against_a_reference():
    def reference(p, steps, lr, b1, b2, eps, wd):
        m = [0.0] * len(p)
        v = [0.0] * len(p)
        for t in range(1, steps + 1):
            g = [pi + wd * pi for pi in p]  # grad of sum(p**2)/2 is p, plus weight decay
            m = [b1 * mi + (1 - b1) * gi for mi, gi in zip(m, g)]
            v = [b2 * vi + (1 - b2) * gi * gi for vi, gi in zip(v, g)]
            m_hat = [mi / (1 - b1 ** t) for mi in m]
            v_hat = [vi / (1 - b2 ** t) for vi in v]
            p = [pi - lr * mh / (math.sqrt(vh) + eps) for pi, mh, vh in zip(p, m_hat, v_hat)]
        return p

    p = kael.tensor([1.0, -2.0, 0.5], dtype=F64, requires_grad=True)
    opt = kael.optim.Adam([p], lr=0.05, betas=(0.8, 0.99), eps=1e-6, weight_decay=0.1)
    for _ in range(5):
        opt.zero_grad()
        ((p * p).sum() / 2).backward()
        opt.step()
    close(p.tolist(), reference([1.0, -2.0, 0.5], 5, 0.05, 0.8, 0.99, 1e-6, 0.1), 1e-12)


def test_optimizer_api():
    a = kael.ones(2, requires_grad=True)
    b = kael.ones(2, requires_grad=True)
    opt = kael.optim.SGD([{"params": [a]}, {"params": [b], "lr": 1.0}], lr=0.1)
    (a + b).sum().backward()
    opt.step()
    assert [round(v, 6) for v in a.tolist()] == [0.9, 0.9] and b.tolist() == [0.0, 0.0]
    opt.zero_grad()
    assert a.grad is None and b.grad is None
    opt.step()  # parameters without gradients are skipped
    assert b.tolist() == [0.0, 0.0]
    assert "lr: 1.0" in repr(opt) and repr(opt).startswith("SGD (")
    with pytest.raises(ValueError, match="empty parameter list"):
        kael.optim.Adam([])
    with pytest.raises(ValueError, match="Invalid learning rate"):
        kael.optim.SGD([a], lr=-1)
    with pytest.raises(ValueError, match="can't optimize a non-leaf Tensor"):
        kael.optim.SGD([a * 2], lr=0.1)
    kael.optim.SGD([kael.ones(2)], lr=0.1).step()  # a frozen tensor is kept, as in PyTorch


# -- two moons --------------------------------------------------------------------------------------------


def make_moons(n, noise=0.1, seed=0):
    """scikit-learn's two interleaving half circles, drawn from kael's seeded generator."""
    g = kael.Generator(seed)
    t = kael.rand(n, dtype=F64, generator=g) * math.pi
    upper = kael.arange(n) < n // 2
    x = kael.where(upper, t.cos(), 1 - t.cos())
    y = kael.where(upper, t.sin(), 0.5 - t.sin())
    points = kael.stack([x, y], 1) + noise * kael.randn(n, 2, dtype=F64, generator=g)
    return points.float(), (~upper).long()


def test_make_moons_is_seeded_and_balanced():
    X, y = make_moons(200)
    X2, y2 = make_moons(200)
    assert X.tolist() == X2.tolist() and y.tolist() == y2.tolist()
    assert X.shape == (200, 2) and X.dtype is kael.float32 and y.dtype is kael.int64
    assert y.sum().item() == 100


def test_two_moons_classifier_reaches_97_percent():
    X, y = make_moons(200)
    kael.manual_seed(0)
    model = nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 16), nn.Tanh(), nn.Linear(16, 2))
    opt = kael.optim.Adam(model.parameters(), lr=0.05)
    loss_fn = nn.CrossEntropyLoss()
    first = None
    for _ in range(100):
        loss = loss_fn(model(X), y)
        first = first if first is not None else loss.item()
        opt.zero_grad()
        loss.backward()
        opt.step()
    model.eval()
    with kael.no_grad():
        accuracy = (model(X).argmax(1) == y).float().mean().item()
    assert loss.item() < first / 10
    assert accuracy >= 0.97, f"training accuracy {accuracy:.3f}"


def test_two_moons_need_the_hidden_layers():
    # A linear classifier cannot separate the moons: the test above measures something.
    X, y = make_moons(200)
    kael.manual_seed(0)
    model = nn.Linear(2, 2)
    opt = kael.optim.Adam(model.parameters(), lr=0.05)
    for _ in range(100):
        loss = F.cross_entropy(model(X), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    with kael.no_grad():
        accuracy = (model(X).argmax(1) == y).float().mean().item()
    assert accuracy < 0.95
