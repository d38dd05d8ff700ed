"""The worker's Python side (web/src/worker/playground.py and its modules), run in CPython with a
stand-in for the JS module it emits through (tests/web/conftest.py): results and errors come back
as data, tracebacks start at the learner's code, kael.viz.show and playground.plot reach the page,
public tests run in-process."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def run(driver, code):
    return json.loads(driver.run(json.dumps({"code": code})))


def test_last_expression_is_the_result_and_prints_stream(driver, capsys):
    result = run(driver, "print(6 * 7)\nx = 2\nx + 40")
    assert result["ok"] is True
    assert result["value"] == "42"
    assert capsys.readouterr().out == "42\n"
    assert result["duration_ms"] >= 0


def test_statement_only_code_has_no_value(driver):
    assert run(driver, "x = 1")["value"] is None


def test_error_is_data_with_frames_from_the_learners_code(driver):
    code = "import kael\n\ndef f(t):\n    return t @ kael.ones(4)\n\nf(kael.ones(2, 3))\n"
    result = run(driver, code)
    assert result["ok"] is False
    error = result["error"]
    assert error["type"] == "RuntimeError" or error["type"].endswith("Error")
    assert error["frames"][0] == {"filename": "main.py", "lineno": 6, "name": "<module>", "line": "f(kael.ones(2, 3))"}
    assert error["frames"][1]["lineno"] == 4
    assert error["lineno"] == 4  # the deepest line of main.py
    assert error["traceback"].startswith("Traceback (most recent call last):\n  File \"main.py\", line 6")
    assert str(REPO / "web" / "src" / "worker") not in error["traceback"]  # none of playground's frames


def test_syntax_error_names_the_line(driver):
    error = run(driver, "x = 1\ny = (\n")["error"]
    assert error["type"] == "SyntaxError"
    assert error["lineno"] == 2
    assert 'File "main.py", line 2' in error["traceback"]


def test_keyboard_interrupt_and_system_exit_are_data(driver):
    assert run(driver, "raise KeyboardInterrupt")["error"]["type"] == "KeyboardInterrupt"
    assert run(driver, "import sys\nsys.exit(3)")["error"]["type"] == "SystemExit"


def test_each_run_starts_with_a_fresh_namespace(driver):
    run(driver, "leftover = 1")
    assert run(driver, "leftover")["error"]["type"] == "NameError"


def test_viz_show_reaches_the_page_as_a_graph_and_a_trace(driver, emitted):
    assert driver.install_display_hook() is True
    code = (
        "import kael, kael.viz\n"
        "x = kael.tensor([1.0, 2.0], requires_grad=True)\n"
        "loss = (x * 2 + x * 3).sum()\n"
        "kael.viz.show(loss, params=dict(x=x))\n"
        "with kael.viz.trace() as tr:\n"
        "    loss.backward()\n"
        "kael.viz.show(tr)\n"
    )
    assert run(driver, code)["ok"] is True
    kinds = [kind for kind, _ in emitted]
    assert kinds == ["graph", "trace"]
    graph, trace = emitted[0][1]["data"], emitted[1][1]["data"]
    assert graph["kind"] == "graph" and graph["totals"]["nodes"] == 5
    assert [s["kind"] for s in trace["steps"]][0] == "start"
    assert trace["steps"][-1]["accumulated"]["values"] == [5.0, 5.0]


def test_last_expression_tensor_with_history_draws_its_graph(driver, emitted):
    run(driver, "import kael\nx = kael.ones(3, requires_grad=True)\n(x * x).sum()")
    assert [kind for kind, _ in emitted] == ["graph"]
    emitted.clear()
    run(driver, "import kael\nkael.ones(3)")  # no history: nothing to draw
    assert emitted == []


def test_plot_and_progress_stream_points(driver, emitted):
    run(driver, "import playground, math\nplayground.plot('loss', 0, 0.5)\nplayground.plot('loss', 1, math.nan, xlabel='epoch')\n"
                "playground.progress(1, 4, 'training')")
    assert emitted == [
        ("plot", {"series": "loss", "x": 0.0, "y": 0.5, "xlabel": "step"}),
        ("plot", {"series": "loss", "x": 1.0, "y": None, "xlabel": "epoch"}),
        ("progress", {"value": 1.0, "total": 4.0, "label": "training"}),
    ]


def test_display_sends_a_kind_of_its_own_to_the_page(driver, emitted):
    # A new panel's kind needs no list to be added to: the page's panels pick the kinds they draw.
    run(driver, "import playground\nplayground.display('histogram', {'counts': [1, 2]}, title='h')\n"
                "playground.display('bare', [3])")
    assert emitted == [("histogram", {"data": {"counts": [1, 2]}, "title": "h"}), ("bare", {"data": [3]})]


@pytest.mark.parametrize("kind", ["", "Histogram", "has space", "x" * 41, 3])
def test_display_refuses_a_kind_that_is_not_a_name(driver, emitted, kind):
    result = run(driver, f"import playground\nplayground.display({kind!r}, 1)")
    assert result["ok"] is False and result["error"]["type"] == "ValueError"
    assert "display kind" in result["error"]["message"] and emitted == []


def test_public_tests_run_in_process_with_the_harness(driver, monkeypatch):
    tests_module = sys.modules["playground_tests"]
    monkeypatch.setattr(tests_module, "HARNESS_ROOT", str(REPO / "exercises"))
    folder = REPO / "exercises" / "01-graph-walk"
    config = json.loads((folder / ".meta" / "config.json").read_text())
    request = {
        "exercise_id": config["id"],
        "tests_source": (folder / config["files"]["test"]).read_text(),
        "module": Path(config["files"]["solution"]).stem,
        "solution_file": config["files"]["solution"],
        "test_file": config["files"]["test"],
    }
    starter = json.loads(driver.run_tests(json.dumps({**request, "code": (folder / config["files"]["solution"]).read_text()})))
    assert starter["error"] is None
    assert starter["report"]["verdict"] != "Accepted"
    reference = json.loads(driver.run_tests(json.dumps({**request, "code": (folder / ".meta" / "reference.py").read_text()})))
    assert reference["report"]["verdict"] == "Accepted", reference
    assert reference["report"]["graded"] is False  # in-process: feedback only


INPLACE = """import kael
x = kael.tensor([1.0, 2.0, 3.0], requires_grad=True)
w = kael.tensor([0.5, -1.0, 2.0])
y = x * w
w.mul_(2)
loss = y.sum()
loss.backward()
"""


def test_inplace_error_marks_the_saved_modified_and_backward_lines(driver):
    import kael.autograd

    result = run(driver, INPLACE)
    error = result["error"]
    assert error["lineno"] == 7
    assert [(m["line"], m["kind"]) for m in error["marks"]] == [(4, "saved"), (5, "modified"), (7, "backward")]
    assert {(m["node"], m["saved_version"], m["version"]) for m in error["marks"][::2]} == {("MulBackward", 0, 1)}
    assert kael.autograd.is_detect_source_enabled() is False  # the run's setting does not outlive it


def test_detect_source_off_leaves_only_the_backward_line(driver):
    result = json.loads(driver.run(json.dumps({"code": INPLACE, "detect_source": False})))
    assert [(m["line"], m["kind"]) for m in result["error"]["marks"]] == [(7, "backward")]
    assert "at line" not in result["error"]["message"]


def test_other_errors_mark_nothing(driver):
    assert run(driver, "x = 1\n1 / 0\n")["error"]["marks"] == []


def test_record_forward_emits_the_steps_and_the_backward_trace_on_one_graph(driver, emitted):
    source = INPLACE.replace("w.mul_(2)\n", "")
    result = json.loads(driver.run(json.dumps({"code": source, "record_forward": True})))
    assert result["ok"], result
    forward = [payload["data"] for kind, payload in emitted if kind == "forward"]
    assert len(forward) == 1
    doc = forward[0]
    assert [s["line"] for s in doc["steps"]] == [1, 2, 3, 4, 5, 6]
    assert doc["stopped"] is False and doc["truncated"] is False
    graph = doc["trace"]["passes"][0]["graph"]
    assert {n["label"]: n["recorded"]["line"] for n in graph["nodes"]} == {
        "SumBackward": 5, "MulBackward": 4, "AccumulateGrad": 4}
    assert next(t for t in graph["tensors"] if t["role"] == "leaf")["name"] == "x"  # the program's names


def test_record_forward_cuts_a_long_loop_with_a_note(driver, emitted):
    source = "import kael\ny = kael.ones(2, requires_grad=True)\nfor i in range(1000):\n    y = y * 1.0\n"
    json.loads(driver.run(json.dumps({"code": source, "record_forward": True})))
    doc = next(payload["data"] for kind, payload in emitted if kind == "forward")
    assert len(doc["steps"]) == driver.MAX_FORWARD_STEPS and doc["truncated"] is True


def test_a_traced_version_error_carries_its_three_lines(driver, emitted):
    source = INPLACE.replace("loss.backward()\n", "try:\n    with kael.viz.trace() as tr:\n        loss.backward()\nexcept RuntimeError:\n    pass\nkael.viz.show(tr)\n")
    source = "import kael.viz\n" + source
    driver.install_display_hook()
    assert run(driver, source)["ok"]
    trace = next(payload["data"] for kind, payload in emitted if kind == "trace")
    error = next(e for e in trace["steps"] if e["kind"] == "error")
    assert [(m["line"], m["kind"]) for m in error["marks"]] == [(5, "saved"), (6, "modified"), (10, "backward")]
