"""Modules and optimizers as PyTorch code uses them (issue 23): casts keep the Parameter
objects, assignment rules, forward hooks, containers, clipping, optimizers' state dicts and
learning-rate schedulers. PyTorch's values are written in, so these run without it."""

import math

import pytest

import kael
from kael import nn


def _mlp():
    kael.manual_seed(0)
    return nn.Sequential(nn.Linear(2, 3), nn.Tanh(), nn.Linear(3, 1))


@pytest.mark.parametrize("cast", [lambda m: m.double(), lambda m: m.to(kael.float64), lambda m: m.to("cpu", kael.float64),
                                  lambda m: m.to(kael.ones(1, dtype=kael.float64))])
def test_cast_keeps_parameter_objects_so_an_earlier_optimizer_still_trains(cast):
    m = _mlp()
    before = list(m.parameters())
    opt = kael.optim.SGD(m.parameters(), lr=0.1)
    cast(m)
    assert [p is q for p, q in zip(before, m.parameters())] == [True] * 4
    assert all(p.dtype is kael.float64 and p.is_leaf and p.requires_grad for p in m.parameters())
    x = kael.ones(4, 2, dtype=kael.float64)
    w0 = m[0].weight.clone()
    m(x).sum().backward()
    opt.step()
    assert not kael.equal(w0, m[0].weight)
    m.float()
    assert m[0].weight is before[0] and m[0].weight.dtype is kael.float32


def test_cast_casts_gradients_and_floating_buffers_only():
    m = nn.Linear(2, 2)
    m.register_buffer("count", kael.tensor(3))
    m.register_buffer("scale", kael.tensor(0.5))
    m(kael.ones(1, 2)).sum().backward()
    m.double()
    assert m.weight.grad.dtype is kael.float64 and m.count.dtype is kael.int64 and m.scale.dtype is kael.float64


def test_module_to_rejects_an_integer_dtype_and_cuda():
    m = nn.Linear(2, 2)
    with pytest.raises(TypeError, match="floating point"):
        m.to(kael.int64)
    with pytest.raises(AssertionError, match="CUDA"):
        m.to("cuda")


def test_assigning_a_plain_tensor_to_a_parameter_name_raises_type_error():
    m = nn.Linear(2, 2)
    with pytest.raises(TypeError, match="cannot assign .* as parameter 'weight'"):
        m.weight = kael.ones(2, 2)
    seq = nn.Sequential(nn.Linear(1, 1))
    with pytest.raises(TypeError, match="as child module '0'"):
        setattr(seq, "0", 3)
    m.bias = None
    assert [n for n, _ in m.named_parameters()] == ["weight"]
    m.weight = nn.Parameter(kael.zeros(2, 2))
    assert m.weight.tolist() == [[0.0, 0.0], [0.0, 0.0]]


def test_linear_refuses_an_input_of_another_dtype():
    with pytest.raises(RuntimeError, match="mat1 and mat2 must have the same dtype, but got Double and Float"):
        nn.Linear(2, 3)(kael.ones(1, 2, dtype=kael.float64))


def test_optimizer_refuses_a_non_leaf_and_a_bare_tensor_and_keeps_frozen_parameters():
    w = kael.ones(2, requires_grad=True)
    with pytest.raises(ValueError, match="can't optimize a non-leaf Tensor"):
        kael.optim.Adam([w * 2])
    with pytest.raises(TypeError, match="iterable of Tensors or dicts"):
        kael.optim.SGD(w, lr=0.1)
    with pytest.raises(ValueError, match="more than one parameter group"):
        kael.optim.SGD([{"params": [w]}, {"params": [w]}], lr=0.1)
    m = _mlp()
    m[0].bias.requires_grad_(False)
    opt = kael.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)
    bias = m[0].bias.clone()
    m(kael.ones(1, 2)).sum().backward()
    opt.step()
    assert kael.equal(bias, m[0].bias)


def test_forward_hooks_see_and_replace_inputs_and_outputs():
    m = nn.Linear(2, 1)
    seen = []
    pre = m.register_forward_pre_hook(lambda mod, args: (args[0] * 0,))
    post = m.register_forward_hook(lambda mod, args, out: seen.append((mod, args[0].tolist())) or out + 1)
    out = m(kael.ones(1, 2))
    assert seen == [(m, [[0.0, 0.0]])] and out.tolist() == [[m.bias.item() + 1]]
    pre.remove()
    post.remove()
    assert m(kael.zeros(1, 2)).tolist() == [[m.bias.item()]]


def test_containers_register_what_they_hold():
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.heads = nn.ModuleDict({"a": nn.Linear(2, 1), "b": nn.Linear(2, 1, bias=False)})
            self.scales = nn.ParameterList([kael.ones(2), nn.Parameter(kael.zeros(1))])
            self.extra = nn.ParameterDict({"t": kael.ones(3)})

    net = Net()
    names = [n for n, _ in net.named_parameters()]
    assert names == ["heads.a.weight", "heads.a.bias", "heads.b.weight", "scales.0", "scales.1", "extra.t"]
    assert "a" in net.heads and len(net.scales) == 2 and list(net.extra) == ["t"]
    assert isinstance(net.scales[0], nn.Parameter) and net.scales[0].requires_grad
    assert list(net.state_dict()) == names


def test_clip_grad_norm_scales_all_gradients_together():
    a, b = nn.Parameter(kael.tensor([3.0])), nn.Parameter(kael.tensor([4.0]))
    a.grad, b.grad = kael.tensor([3.0]), kael.tensor([4.0])
    total = nn.utils.clip_grad_norm_([a, b], max_norm=1.0)
    assert total.item() == 5.0
    assert math.isclose(a.grad.item(), 0.6, rel_tol=1e-6) and math.isclose(b.grad.item(), 0.8, rel_tol=1e-6)
    a.grad = kael.tensor([3.0])
    assert nn.utils.clip_grad_norm_(a, 10.0, norm_type="inf").item() == 3.0 and a.grad.item() == 3.0
    a.grad = kael.tensor([-5.0])
    nn.utils.clip_grad_value_([a], 2.0)
    assert a.grad.item() == -2.0


def _quadratic_steps(opt_cls, n=5, **kw):
    w = nn.Parameter(kael.tensor([1.0, -2.0, 3.0], dtype=kael.float64))
    opt = opt_cls([w], **kw)
    for _ in range(n):
        opt.zero_grad()
        ((w * w).sum() + w.sin().sum()).backward()
        opt.step()
    return w, opt


# PyTorch 2.13, float64, the same five steps
_EXPECTED = {
    "SGD": (dict(lr=0.1, momentum=0.9, weight_decay=0.1), [-1.230177373678124, 0.8850490202543625, -1.806901888865461]),
    "Adam": (dict(lr=0.1, weight_decay=0.1), [0.5030716414362619, -1.5043217059604201, 2.5018207627913784]),
    "AdamW": (dict(lr=0.1, weight_decay=0.1), [0.4641665890175195, -1.417472384033726, 2.365264795410945]),
}


@pytest.mark.parametrize("name", sorted(_EXPECTED))
def test_optimizers_match_pytorch(name):
    kw, expected = _EXPECTED[name]
    w, _ = _quadratic_steps(getattr(kael.optim, name), **kw)
    assert w.tolist() == pytest.approx(expected, rel=1e-12, abs=1e-12)


def test_optimizer_state_dict_round_trip_resumes_the_same_trajectory():
    w, opt = _quadratic_steps(kael.optim.Adam, n=3, lr=0.1)
    sd = opt.state_dict()
    assert sorted(sd["state"][0]) == ["exp_avg", "exp_avg_sq", "step"] and sd["param_groups"][0]["params"] == [0]
    w2 = nn.Parameter(w.detach().clone())
    opt2 = kael.optim.Adam([w2], lr=0.5)
    opt2.load_state_dict(sd)
    assert opt2.param_groups[0]["lr"] == 0.1
    for p, o in ((w, opt), (w2, opt2)):
        o.zero_grad()
        (p * p).sum().backward()
        o.step()
    assert kael.equal(w, w2)
    with pytest.raises(ValueError, match="different number of parameter groups"):
        opt2.load_state_dict({"state": {}, "param_groups": []})


def test_add_param_group_fills_in_defaults():
    a, b = kael.ones(1, requires_grad=True), kael.ones(1, requires_grad=True)
    opt = kael.optim.SGD([a], lr=0.1, momentum=0.5)
    opt.add_param_group({"params": b, "lr": 0.01})
    assert [g["lr"] for g in opt.param_groups] == [0.1, 0.01] and opt.param_groups[1]["momentum"] == 0.5


# PyTorch 2.13: get_last_lr() after each of 12 epochs, starting at lr=0.1
_SCHEDULES = {
    "StepLR": (lambda o: kael.optim.lr_scheduler.StepLR(o, 3, 0.5),
               [0.1, 0.1, 0.05, 0.05, 0.05, 0.025, 0.025, 0.025, 0.0125, 0.0125, 0.0125, 0.00625]),
    "CosineAnnealingLR": (lambda o: kael.optim.lr_scheduler.CosineAnnealingLR(o, 5, 0.01),
                          [0.09140576474687263, 0.06890576474687263, 0.04109423525312736, 0.018594235253127367,
                           0.01, 0.018594235253127367, 0.04109423525312739, 0.06890576474687267,
                           0.09140576474687269, 0.10000000000000006, 0.09140576474687272, 0.06890576474687268]),
    "LambdaLR": (lambda o: kael.optim.lr_scheduler.LambdaLR(o, lambda e: 0.9**e), [0.1 * 0.9**e for e in range(1, 13)]),
}


@pytest.mark.parametrize("name", sorted(_SCHEDULES))
def test_schedulers_match_pytorch(name):
    make, expected = _SCHEDULES[name]
    w = kael.ones(1, requires_grad=True)
    opt = kael.optim.SGD([w], lr=0.1)
    sched = make(opt)
    rates = []
    for _ in range(12):
        opt.step()
        sched.step()
        rates.append(sched.get_last_lr()[0])
    assert rates == pytest.approx(expected, rel=1e-12)
    assert opt.param_groups[0]["lr"] == rates[-1] and sched.state_dict()["last_epoch"] == 12
