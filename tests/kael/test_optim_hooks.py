"""Optimizer step hooks, as PyTorch has them: per optimizer (``register_step_pre_hook`` /
``register_step_post_hook``) and global (``kael.optim.optimizer.register_optimizer_step_*``)."""

from __future__ import annotations

import pytest

import kael
from kael import nn
from kael.optim import SGD, Adam, Optimizer
from kael.optim.optimizer import register_optimizer_step_post_hook, register_optimizer_step_pre_hook


def _model():
    kael.manual_seed(0)
    return nn.Linear(2, 1)


def _loss(model):
    return model(kael.tensor([[1.0, 2.0]])).sum()


def test_hooks_run_around_step_in_pytorchs_order():
    model = _model()
    opt = SGD(model.parameters(), lr=0.1)
    calls = []
    weight = model.weight
    handles = [
        register_optimizer_step_pre_hook(lambda o, a, k: calls.append(("global pre", weight.tolist()))),
        opt.register_step_pre_hook(lambda o, a, k: calls.append(("pre", weight.tolist()))),
        opt.register_step_post_hook(lambda o, a, k: calls.append(("post", weight.tolist()))),
        register_optimizer_step_post_hook(lambda o, a, k: calls.append(("global post", weight.tolist()))),
    ]
    try:
        before = weight.tolist()
        _loss(model).backward()
        opt.step()
        after = weight.tolist()
    finally:
        for h in handles:
            h.remove()
    assert before != after
    assert calls == [("global pre", before), ("pre", before), ("post", after), ("global post", after)]


def test_a_hook_gets_the_optimizer_and_the_steps_arguments():
    model = _model()
    opt = SGD(model.parameters(), lr=0.1)
    seen = []
    opt.register_step_post_hook(lambda o, args, kwargs: seen.append((o, args, kwargs)))
    closure = lambda: _loss(model)  # noqa: E731
    opt.step(closure=closure)
    assert seen == [(opt, (), {"closure": closure})]


def test_a_pre_hook_may_replace_the_arguments():
    model = _model()
    opt = SGD(model.parameters(), lr=0.1)
    ran = []

    def closure():
        ran.append(True)
        opt.zero_grad()
        loss = _loss(model)
        loss.backward()
        return loss

    opt.register_step_pre_hook(lambda o, args, kwargs: ((closure,), {}))
    assert opt.step() is not None  # step ran the closure the hook gave it
    assert ran == [True]


def test_a_pre_hook_returning_something_else_is_an_error():
    opt = SGD(_model().parameters(), lr=0.1)
    opt.register_step_pre_hook(lambda o, a, k: "no")
    with pytest.raises(RuntimeError, match=r"must return None or a tuple of \(new_args, new_kwargs\), but got 'no'"):
        opt.step()


def test_removed_hooks_do_not_run_and_global_hooks_see_every_optimizer():
    a, b = _model(), _model()
    opt_a, opt_b = SGD(a.parameters(), lr=0.1), Adam(b.parameters(), lr=0.1)
    seen = []
    handle = register_optimizer_step_post_hook(lambda o, args, kwargs: seen.append(type(o).__name__))
    local = opt_a.register_step_post_hook(lambda o, args, kwargs: seen.append("local"))
    try:
        opt_a.step()
        opt_b.step()
        local.remove()
        opt_a.step()
    finally:
        handle.remove()
    opt_b.step()
    assert seen == ["local", "SGD", "Adam", "SGD"]


def test_a_subclass_calling_super_step_runs_the_hooks_once():
    class Clipped(SGD):
        def step(self, closure=None):
            return super().step(closure)

    class Mine(Optimizer):
        def __init__(self, params):
            super().__init__(params, {"lr": 0.1})

        def step(self):
            for group, p in self._params_with_grad():
                p.data.sub_(p.grad * group["lr"])

    model = _model()
    seen = []
    for opt in (Clipped(model.parameters(), lr=0.1), Mine(model.parameters())):
        opt.register_step_post_hook(lambda o, a, k: seen.append(type(o).__name__))
        _loss(model).backward()
        opt.step()
    assert seen == ["Clipped", "Mine"]


def test_a_failing_step_runs_no_post_hook_and_the_next_step_runs_them():
    class Failing(SGD):
        fail = True

        def step(self, closure=None):
            if self.fail:
                raise ValueError("boom")
            return super().step(closure)

    opt = Failing(_model().parameters(), lr=0.1)
    seen = []
    opt.register_step_post_hook(lambda o, a, k: seen.append(1))
    with pytest.raises(ValueError, match="boom"):
        opt.step()
    opt.fail = False
    opt.step()
    assert seen == [1]
