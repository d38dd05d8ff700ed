"""Public tests of two_moons. make_moons is compared value by value. For the classifier, the test
makes its own moons, trains your model on them and predicts fresh points: at least 95% must be
right. (The hidden tests do the same on other moons, and there the judge itself counts the
right predictions, from the plain lists of predictions and labels.)"""

import math

import kael


def _moons(n, noise, seed):
    """The test's own two moons (the same recipe as make_moons), so that the points your model
    is scored on do not depend on your make_moons."""
    kael.manual_seed(seed)
    labels = kael.randint(0, 2, (n,))
    t = kael.rand(n) * math.pi
    upper = labels == 0
    x = kael.where(upper, t.cos(), 1.0 - t.cos())
    y = kael.where(upper, t.sin(), 0.5 - t.sin())
    return kael.stack([x, y], dim=1) + kael.randn(n, 2) * noise, labels


def _as_list(predictions):
    if isinstance(predictions, kael.Tensor):
        predictions = predictions.tolist()
    return [int(p) for p in predictions]


def _accuracy_capped(m, train_set, test_set):
    """Train on train_set, predict test_set's points, and only then make its labels again; the
    accuracy rounded down to 2 decimals, capped at 0.95 (so every model that is good enough gives
    exactly 0.95)."""
    points, labels = _moons(*train_set)
    model = m.train(points, labels)
    fresh = _moons(*test_set)[0]  # the labels are dropped at once: predict cannot find them
    predictions = _as_list(m.predict(model, fresh))
    _, truth = _moons(*test_set)
    right = sum(1 for p, t in zip(predictions, truth.tolist()) if p == t)
    return min(math.floor(100 * right / len(truth.tolist())) / 100, 0.95)


def test_make_moons_without_noise(m):
    """make_moons(4, noise=0.0, seed=0): points on the two arcs, labels 0 (upper moon) and 1 (lower)"""
    points, labels = m.make_moons(4, noise=0.0, seed=0)
    return [points.tolist(), labels.tolist()]


test_make_moons_without_noise.expected = [
    [[1.994120, 0.391718], [0.955805, -0.499023], [-0.967189, 0.254059], [1.860507, -0.009439]],
    [1, 1, 0, 1],
]
test_make_moons_without_noise.atol = 1e-5


def test_make_moons_with_noise(m):
    """make_moons(3, noise=0.1, seed=1)"""
    points, labels = m.make_moons(3, noise=0.1, seed=1)
    return [points.tolist(), labels.tolist()]


test_make_moons_with_noise.expected = [
    [[0.956491, 0.456676], [-0.640381, 0.610473], [0.835320, -0.558318]],
    [0, 0, 1],
]
test_make_moons_with_noise.atol = 1e-5


def test_make_moons_types(m):
    """make_moons(10): points float32 [10, 2], labels int64 [10]"""
    points, labels = m.make_moons(10)
    return [str(points.dtype), list(points.shape), str(labels.dtype), list(labels.shape)]


test_make_moons_types.expected = ["kael.float32", [10, 2], "kael.int64", [10]]


def test_accuracy_on_fresh_moons(m):
    """train on 120 moons (noise 0.1, seed 0), predict 400 fresh ones (seed 100): the accuracy, capped at 0.95"""
    return _accuracy_capped(m, (120, 0.1, 0), (400, 0.1, 100))


test_accuracy_on_fresh_moons.expected = 0.95
test_accuracy_on_fresh_moons.atol = 0.001


def test_train_returns_a_trained_module(m):
    """train on 60 moons (noise 0.1, seed 0) returns a kael.nn.Module whose parameters have a
    .grad; model(points) of 9 fresh points gives logits [9, 2] whose argmax is predict's answer"""
    points, labels = _moons(60, 0.1, 0)
    model = m.train(points, labels)
    fresh = _moons(9, 0.1, 101)[0]
    params = list(model.parameters()) if isinstance(model, kael.nn.Module) else []
    logits = model(fresh) if isinstance(model, kael.nn.Module) else None
    shape = list(logits.shape) if isinstance(logits, kael.Tensor) else None
    with kael.no_grad():
        argmax = logits.argmax(dim=1).tolist() if shape == [9, 2] else None
    return [isinstance(model, kael.nn.Module), len(params) > 0, all(p.grad is not None for p in params),
            shape, argmax == _as_list(m.predict(model, fresh))]


test_train_returns_a_trained_module.expected = [True, True, True, [9, 2], True]
