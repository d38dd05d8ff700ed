"""Hidden tests of two_moons. The points the classifier is scored on are made in the reference's
run from a secret random seed (data_fresh_moons): a submission gets the points only, and the
judge counts the right predictions against labels that never exist in the submission's process
(no frame, global or gc walk can find them, no seed search can make them again)."""

import math
import os
import random

import kael
from public_test import _as_list, _moons  # helpers shared with the public tests

ATOL = 1e-5


MIRROR = [-1.0, 1.0]
_trained = {}


def _mirrored_model(m):
    """One model per run, trained on mirrored moons (x -> -x), shared by the cases below. What
    train leaves behind is noted as soon as it returns, before a case uses the model (a case's
    backward adds to the parameters' .grad): whether the caller's points and labels still hold
    what they held, and what the parameters' .grad are."""
    if "model" not in _trained:
        points, labels = _moons(120, 0.1, 5)
        points = points * kael.tensor(MIRROR)
        before = [_state(points), _state(labels)]
        model = m.train(points, labels)
        _trained["arguments"] = {"train's points": _unchanged(before[0], points),
                                 "train's labels": _unchanged(before[1], labels)}
        _trained["grads"] = _last_step_grads(model)
        _trained["model"] = model
    return _trained["model"]


def _state(t):
    """What a caller sees of a tensor: dtype, shape, values, requires_grad, whether it has a .grad."""
    return [t.dtype.name, list(t.shape), t.tolist(), t.requires_grad, t.grad is None]


def _unchanged(before, t):
    return "unchanged" if _state(t) == before else "changed"


def _last_step_grads(model):
    """The parameters' .grad as train returns the model: each a tensor of its parameter's shape
    and dtype with finite values, and not all of them zero (the gradient of the last step is
    there, not one cleared after it)."""
    params = list(model.parameters()) if isinstance(model, kael.nn.Module) else []
    if not params:
        return ["no parameters", "no parameters"]
    kind, nonzero = "each a finite tensor of its parameter's shape and dtype", False
    for i, p in enumerate(params):
        g = p.grad
        if not isinstance(g, kael.Tensor):
            kind = f"parameter {i}'s .grad is {'None' if g is None else 'a ' + type(g).__name__}"
            break
        if g.dtype is not p.dtype or list(g.shape) != list(p.shape):
            kind = f"parameter {i} ({p.dtype.name} {list(p.shape)}) has a {g.dtype.name} {list(g.shape)} .grad"
            break
        values = g.detach().reshape(-1).tolist()
        if not all(math.isfinite(v) for v in values):
            kind = f"parameter {i}'s .grad is not finite"
            break
        nonzero = nonzero or any(v != 0 for v in values)
    return [kind, "not all zero" if nonzero else "all zero (cleared after the last step?)"]


def test_make_moons_other_seed(m):
    """make_moons(5, noise=0.2, seed=7)"""
    points, labels = m.make_moons(5, noise=0.2, seed=7)
    return [points.tolist(), labels.tolist()]


def test_make_moons_noise_free_points_lie_on_arcs(m):
    """make_moons(50, noise=0.0, seed=3): upper points on the unit circle, lower ones on the shifted circle"""
    points, labels = m.make_moons(50, noise=0.0, seed=3)
    out = []
    for (x, y), label in zip(points.tolist(), labels.tolist()):
        cx, cy = (0.0, 0.0) if label == 0 else (1.0, 0.5)
        out.append(round((x - cx) ** 2 + (y - cy) ** 2, 4))
    return [out, sum(labels.tolist())]


def test_make_moons_is_reproducible(m):
    """make_moons(20, seed=4) twice gives the same points; seed=5 gives others"""
    a, la = m.make_moons(20, seed=4)
    b, lb = m.make_moons(20, seed=4)
    c, _ = m.make_moons(20, seed=5)
    return [a.tolist() == b.tolist(), la.tolist() == lb.tolist(), a.tolist() == c.tolist()]


def test_make_moons_default_noise(m):
    """make_moons(3, seed=2) uses noise 0.1"""
    points, labels = m.make_moons(3, seed=2)
    return [points.tolist(), labels.tolist()]


def data_fresh_moons():
    """400 fresh mirrored moons from a secret seed (made in the reference's run only)."""
    points, labels = _moons(400, 0.1, int.from_bytes(os.urandom(8), "little"))
    return {"input": (points * kael.tensor(MIRROR)).tolist(), "answer": {"labels": labels.tolist()}}


def test_accuracy_on_mirrored_moons(m, points):
    """train on mirrored moons (seed 5), predict 400 fresh mirrored ones (a secret seed): >= 95% right"""
    model = _mirrored_model(m)
    return {"predictions": _as_list(m.predict(model, kael.tensor(points)))}


test_accuracy_on_mirrored_moons.min_accuracy = 0.95
test_accuracy_on_mirrored_moons.given = "data_fresh_moons"


def test_predict_one_class_per_point(m):
    """predict(model, points) for 7 points: 7 class indices, each 0 or 1"""
    fresh, _ = _moons(7, 0.1, 106)
    predictions = _as_list(m.predict(_mirrored_model(m), fresh * kael.tensor(MIRROR)))
    return [len(predictions), all(p in (0, 1) for p in predictions)]


def _kind_of_predictions(predictions, n):
    """What the statement promises predict returns, or a description of what came back."""
    if isinstance(predictions, kael.Tensor):
        if predictions.dtype is kael.int64 and list(predictions.shape) == [n]:
            return "an int64 tensor [N] or a list of N ints"
        return f"a {predictions.dtype.name} tensor of shape {list(predictions.shape)}"
    if type(predictions) is list:
        kinds = sorted({type(p).__name__ for p in predictions})
        if len(predictions) == n and kinds in ([], ["int"]):
            return "an int64 tensor [N] or a list of N ints"
        return f"a list of {len(predictions)} items of type {', '.join(kinds) or 'none'}"
    return f"a {type(predictions).__name__}"


def test_predict_returns_class_indices(m):
    """predict(model, points) for 1, 2 and 6 points returns what the statement says: an int64
    tensor [N] or a list of N ints (not a bool tensor, not floats)"""
    model = _mirrored_model(m)
    out = []
    for n, seed in ((1, 110), (2, 111), (6, 112)):
        fresh, _ = _moons(n, 0.1, seed)
        out.append(_kind_of_predictions(m.predict(model, fresh * kael.tensor(MIRROR)), n))
    return out


def test_predict_records_no_graph(m):
    """predict(model, points) on 3 seeded batches saves no tensor for a backward (it runs under
    kael.no_grad(): saved_tensors_hooks see nothing packed)"""
    model = _mirrored_model(m)
    packed = []
    for seed in (107, 108, 109):
        fresh, _ = _moons(5 + seed % 4, 0.1, seed)
        with kael.autograd.graph.saved_tensors_hooks(lambda t: packed.append(1) or t, lambda t: t):
            m.predict(model, fresh * kael.tensor(MIRROR))
    return len(packed)


def test_make_moons_generated(m):
    """make_moons for 20 seeded (n, noise, seed) triples, n from 0 to 40: every point and label"""
    rng = random.Random(1616)
    out = []
    for _ in range(20):
        n, noise, seed = rng.randint(0, 40), rng.choice([0.0, 0.05, 0.1, 0.3]), rng.randrange(10_000)
        points, labels = m.make_moons(n, noise=noise, seed=seed)
        out.append([list(points.shape), points.tolist(), labels.tolist()])
    return out


def test_make_moons_defaults(m):
    """make_moons(4): noise 0.1 and seed 0 by default"""
    points, labels = m.make_moons(4)
    return [points.tolist(), labels.tolist()]


def test_train_returns_a_trained_mlp(m):
    """the model train returns is a kael.nn.Module with parameters, each with a .grad (trained by
    backward); model(points) gives logits [N, 2] whose argmax is predict's answer, and the logits
    are a differentiable function of the points (a nearest-neighbour lookup is not)"""
    model = _mirrored_model(m)
    fresh, _ = _moons(9, 0.1, 110)
    points = (fresh * kael.tensor(MIRROR)).detach().requires_grad_()
    params = list(model.parameters()) if isinstance(model, kael.nn.Module) else []
    logits = model(points) if isinstance(model, kael.nn.Module) else None
    shape = list(logits.shape) if isinstance(logits, kael.Tensor) else None
    if shape == [9, 2] and logits.requires_grad:
        (logits[:, 1] - logits[:, 0]).sum().backward()
    moved = points.grad is not None and bool((points.grad.abs().sum() > 0).item())
    with kael.no_grad():
        argmax = logits.argmax(dim=1).tolist() if shape == [9, 2] else None
    return [isinstance(model, kael.nn.Module), len(params) > 0,
            all(p.grad is not None for p in params), shape,
            argmax == _as_list(m.predict(model, points.detach())), moved]


def test_parameters_keep_the_last_step_grad(m):
    """the model train returns (mirrored moons, seed 5): each parameter's .grad, as train returns,
    is a finite tensor of the parameter's shape and dtype, and they are not all zero: the .grad of
    the last step (a loop that clears the gradients after its last step leaves zeros)"""
    _mirrored_model(m)
    return _trained["grads"]


def test_train_and_predict_leave_their_arguments_alone(m):
    """train(points, labels) leaves the caller's points and labels as they were (values, dtype,
    shape, requires_grad, .grad), and so does predict(model, points) with its points and with the
    model's parameters (standardize a copy, not the caller's tensor)"""
    model = _mirrored_model(m)
    fresh, _ = _moons(8, 0.1, 113)
    points = fresh * kael.tensor(MIRROR)
    before = _state(points)
    params = list(model.parameters()) if isinstance(model, kael.nn.Module) else []
    values = [p.detach().tolist() for p in params]
    m.predict(model, points)
    return dict(_trained["arguments"], **{
        "predict's points": _unchanged(before, points),
        "the model's parameters in predict": "unchanged" if [p.detach().tolist() for p in params] == values
        else "changed"})


# -- the declared domain (harness/domain.py): the statement's whole input space ------------------

from judge_domain import Domain  # noqa: E402  (the judge copies harness/domain.py beside this file)

DOMAIN = Domain("two-moons")


@DOMAIN.case("make_moons", cases=150, classes=("n 0", "n 1", "n many", "noise 0", "noise default",
                                               "seed default", "noise large", "called twice"))
def make_moons_case(d, m):
    """make_moons(n, noise, seed) for n from 0 to 40, noise 0 to 1 (or left out), any seed (or
    left out); now and then twice in a row with other arguments (the generator is re-seeded)."""
    for again in (False, True):
        n = d.choice((0, 1, d.integer(2, 40), d.integer(2, 40)))
        d.label("n 0" if n == 0 else "n 1" if n == 1 else "n many")
        kwargs = {}
        if d.chance(0.75):
            kwargs["noise"] = d.choice((0.0, 0.05, 0.1, 0.3, 1.0))
            d.label("noise 0" if kwargs["noise"] == 0 else "noise large" if kwargs["noise"] >= 0.3 else "noise small")
        else:
            d.label("noise default")
        if d.chance(0.75):
            kwargs["seed"] = d.integer(0, 2 ** 31 - 1)
        else:
            d.label("seed default")
        d.inputs.append(f"n {n}, {kwargs}")
        d.call("make_moons(n, ...)", m.make_moons, n, **kwargs)
        if again or not d.chance(0.25):
            break
        d.label("called twice")


def test_domain_make_moons(m):
    """make_moons(n, noise, seed) on 150 generated argument sets over the statement's domain"""
    return DOMAIN.run(m, "make_moons")
