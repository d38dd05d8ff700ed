"""The browser's path: public tests run in this very process with harness.inprocess.run_public.
This file also runs in the Pyodide lane (Python 3.14 under Node), where the browser runs it."""

from __future__ import annotations

import sys

import pytest
from exercise_support import EXERCISES  # noqa: F401  (puts the harness on sys.path)

from harness import catalog
from harness.inprocess import run_public

IDS = [e.id for e in catalog.load_all()]


def _run(e, code):
    return run_public(code, e.public_tests_source(), e.module_name, exercise_id=e.id,
                      solution_file=e.solution_file, test_file=e.test_file)


@pytest.mark.parametrize("exercise", IDS)
def test_reference_passes_public_tests_in_process(exercise):
    e = catalog.find(exercise)
    report = _run(e, e.reference_source())
    assert report["verdict"] == "Accepted", [t["message"] for t in report["tests"] if t["status"] != "passed"]
    assert report["graded"] is False and report["public_only"] is True


@pytest.mark.parametrize("exercise", IDS)
def test_starter_fails_public_tests_in_process(exercise):
    e = catalog.find(exercise)
    report = _run(e, e.starter())
    assert report["verdict"] != "Accepted"
    messages = [t["message"] for t in report["tests"] if t["status"] == "error"]
    assert any("NotImplementedError: implement" in m for m in messages)


def test_syntax_error_in_process():
    e = catalog.find("graph-walk")
    report = _run(e, "def walk(fn):\n    return [\n")
    assert report["verdict"] == "Syntax Error"
    assert report["syntax_error"]["line"] >= 2


def test_exit_at_import_is_a_runtime_error_and_the_host_survives():
    e = catalog.find("graph-walk")
    report = _run(e, "import sys\nsys.exit(0)\n")
    assert report["verdict"] == "Runtime Error"
    assert "SystemExit" in report["message"]


def test_submission_module_is_removed_afterwards():
    e = catalog.find("graph-walk")
    before = sys.modules.get(e.module_name)
    _run(e, e.reference_source())
    assert sys.modules.get(e.module_name) is before


def test_in_process_traceback_shows_the_learners_frames_with_their_paths():
    e = catalog.find("graph-walk")
    report = _run(e, "import kael\n\n\ndef walk(fn):\n    return 1 / 0\n")
    message = report["tests"][0]["message"]
    assert 'File "graph_walk.py", line 5, in walk' in message
    assert "ZeroDivisionError: division by zero" in message
    assert "inprocess.py" not in message and "child.py" not in message
