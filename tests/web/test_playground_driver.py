"""The worker's Python side (web/src/worker/playground.py), run in CPython with a stand-in for the
JS module it emits through: results and errors come back as data, tracebacks start at the
learner's code, kael.viz.show and playground.plot reach the page, public tests run in-process."""

from __future__ import annotations

import importlib.util
import json
import sys
import types
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
WORKER = REPO / "web" / "src" / "worker"


@pytest.fixture
def emitted():
    return []


@pytest.fixture
def driver(emitted, monkeypatch):
    fake = types.ModuleType("_kael_worker")
    fake.emit = lambda kind, text: emitted.append((kind, json.loads(text)))
    monkeypatch.setitem(sys.modules, "_kael_worker", fake)
    modules = {}
    for name in ("playground", "playground_tests"):
        spec = importlib.util.spec_from_file_location(name, WORKER / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        monkeypatch.setitem(sys.modules, name, module)
        spec.loader.exec_module(module)
        modules[name] = module
    main = types.ModuleType("__main__")
    monkeypatch.setitem(sys.modules, "__main__", main)
    yield modules["playground"]
    import kael.viz

    kael.viz.set_display(None)


def run(driver, code):
    return json.loads(driver.run(code))


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
    assert "playground.py" not in error["traceback"]


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
