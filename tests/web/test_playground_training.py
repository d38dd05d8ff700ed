"""What a run shows by itself (web/src/worker/playground_watch.py, issue 25.4-5), in CPython with a
stand-in for the worker's emit: the loss per optimizer step, the decision boundary a program asks
for, the progress bar's throttle, and every hook gone when the run ends."""

from __future__ import annotations

import json
import re

import pytest


TRAIN = """
import kael
from kael import nn
kael.manual_seed(0)
model = nn.Linear(2, 1)
opt = kael.optim.SGD(model.parameters(), lr=0.5)
x, y = kael.randn(32, 2), kael.randn(32, 1)
losses = []
for step in range(STEPS):
    loss = ((model(x) - y) ** 2).mean()
    losses.append(loss.item())
    opt.zero_grad()
    loss.backward()
    opt.step()
"""


def run(driver, code, **options):
    return json.loads(driver.run(json.dumps({"code": code, **options})))


def points(emitted):
    runs = {}
    for kind, payload in emitted:
        if kind == "loss":
            for r in payload["data"]["runs"]:
                runs.setdefault((r["id"], r["name"]), []).extend(r["points"])
    return runs


@pytest.mark.parametrize("record_forward", [False, True], ids=["plain", "stepper"])
def test_each_step_after_a_backward_is_a_point_with_that_loss(driver, emitted, record_forward):
    result = run(driver, TRAIN.replace("STEPS", "25"), record_forward=record_forward)
    assert result["ok"], result
    import __main__

    losses = __main__.losses
    assert points(emitted) == {(0, "SGD"): [[i, pytest.approx(v, rel=1e-6)] for i, v in enumerate(losses)]}
    assert losses[-1] < losses[0]


def test_the_points_are_sent_in_batches_not_one_message_a_step(driver, emitted):
    assert run(driver, TRAIN.replace("STEPS", "200"))["ok"]
    batches = [p for k, p in emitted if k == "loss"]
    assert sum(len(r["points"]) for b in batches for r in b["data"]["runs"]) == 200
    assert len(batches) < 20  # at most one batch a quarter second, the first at once


def test_two_optimizers_are_two_series_and_a_step_without_backward_adds_none(driver, emitted):
    code = TRAIN.replace("STEPS", "3") + """
adam = kael.optim.Adam(model.parameters(), lr=0.1)
for step in range(2):
    loss = ((model(x) - y) ** 2).mean()
    adam.zero_grad()
    loss.backward()
    adam.step()
adam.step()
"""
    assert run(driver, code)["ok"]
    series = points(emitted)
    assert [len(v) for v in series.values()] == [3, 2] and list(series) == [(0, "SGD"), (1, "Adam")]
    assert [p[0] for p in series[(1, "Adam")]] == [0, 1]


def test_a_backward_that_is_not_a_scalar_gives_a_point_without_a_value(driver, emitted):
    code = """
import kael
w = kael.ones(3, requires_grad=True)
opt = kael.optim.SGD([w], lr=0.1)
(w * 2).backward(kael.ones(3))
opt.step()
"""
    assert run(driver, code)["ok"]
    assert points(emitted) == {(0, "SGD"): [[0, None]]}


def test_hooks_are_gone_after_the_run_even_when_it_fails(driver, emitted):
    from kael.autograd import engine
    from kael.optim import optimizer
    from kael.utils import progress

    result = run(driver, TRAIN.replace("STEPS", "2") + "raise ValueError('no')\n")
    assert result["error"]["type"] == "ValueError"
    assert len(points(emitted)[(0, "SGD")]) == 2  # the points before the failure still came
    assert engine._tracer is None and progress.reporter is None
    assert optimizer._global_optimizer_post_hooks == []


BOUNDARY = """
import kael, playground
from kael import nn
kael.manual_seed(0)
X = kael.tensor([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
Y = kael.tensor([0.0, 1.0, 0.0, 1.0])
model = MODEL
playground.boundary(model, X, Y ARGS)
"""


def boundaries(emitted):
    return [p["data"] for k, p in emitted if k == "boundary"]


def test_a_boundary_shades_the_predicted_class_over_the_datas_box(driver, emitted):
    code = BOUNDARY.replace("MODEL", "lambda p: p[:, 0] - 0.5").replace(" ARGS", "")
    assert run(driver, code)["ok"]
    first, final = boundaries(emitted)
    assert final["final"] is True and first["final"] is False
    assert final["box"] == pytest.approx([-0.1, 1.1, -0.1, 1.1])
    n = final["grid"]
    x0, x1 = final["box"][:2]
    for i in range(n):
        x = x0 + (i + 0.5) * (x1 - x0) / n
        assert final["classes"][i] == int(x > 0.5)  # row 0, cell i
    assert final["points"] == [[0.0, 0.0, 0], [1.0, 0.0, 1], [0.0, 1.0, 0], [1.0, 1.0, 1]]


def test_class_scores_use_their_argmax_and_probabilities_their_threshold(driver, emitted):
    scores = "lambda p: kael.stack([p[:, 1], 1 - p[:, 1]], dim=1)"
    assert run(driver, BOUNDARY.replace("MODEL", scores).replace(" ARGS", ""))["ok"]
    final = boundaries(emitted)[-1]
    n = final["grid"]
    assert final["classes"][0] == 1 and final["classes"][(n - 1) * n] == 0  # low y: class 1
    emitted.clear()
    probs = "lambda p: kael.sigmoid(p[:, :1] * 10 - 5)"
    assert run(driver, BOUNDARY.replace("MODEL", probs).replace(" ARGS", ", threshold=0.5"))["ok"]
    final = boundaries(emitted)[-1]
    assert final["classes"][0] == 0 and final["classes"][n - 1] == 1


@pytest.mark.parametrize(("model", "args", "message"), [
    ("lambda p: p", ", labels=kael.zeros(3)", r"labels are a tensor of one class per point \(4\), not 3"),
    ("lambda p: p.sum()", "", r"for 1024 points it gave \[\]"),
    ("3", "", "model is something to call on points, not int"),
])
def test_a_boundary_that_cannot_be_drawn_fails_at_the_learners_line(driver, model, args, message):
    code = BOUNDARY.replace("MODEL", model).replace(" ARGS", args).replace("X, Y", "X" if "labels" in args else "X, Y")
    error = run(driver, code)["error"]
    assert error["lineno"] == 8
    assert re.search(message, error["message"]), error["message"]


def test_points_that_are_not_2d_are_refused(driver):
    code = "import kael, playground\nplayground.boundary(lambda p: p, kael.zeros(4, 3))\n"
    error = run(driver, code)["error"]
    assert error["type"] == "ValueError" and "an (N, 2) tensor of 2-D inputs, not [4, 3]" in error["message"]


def test_progress_is_throttled_and_says_where_it_ends(driver, emitted):
    assert run(driver, "import playground\nfor i in range(1, 1001):\n    playground.progress(i, 1000, 'rows')\n")["ok"]
    sent = [p for k, p in emitted if k == "progress"]
    assert sent[0] == {"value": 1.0, "total": 1000.0, "label": "rows"}
    assert sent[-1] == {"value": 1000.0, "total": 1000.0, "label": "rows"}  # the end is always sent
    assert len(sent) < 20


def test_kaels_reporter_shows_only_operations_that_last(driver, watch, emitted, monkeypatch):
    monkeypatch.setattr(watch, "KAEL_BAR_AFTER_S", 0.0)
    code = """
from kael.utils import progress
for op in range(3):
    for done in range(1, 5):
        progress.reporter(done, 4, f"op {op}: rows")
"""
    assert run(driver, code)["ok"]
    sent = [p for k, p in emitted if k == "progress"]
    assert all(p["source"] == "kael" for p in sent)
    ends = [p for p in sent if p["value"] == p["total"]]
    assert [p["label"] for p in ends] == ["op 0: rows", "op 1: rows", "op 2: rows"]  # each shown one ends
    emitted.clear()
    monkeypatch.setattr(watch, "KAEL_BAR_AFTER_S", 60.0)
    assert run(driver, code)["ok"]
    assert [k for k, _ in emitted if k == "progress"] == []  # nothing lasted: no bar
