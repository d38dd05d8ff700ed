"""Each verdict, and hostile submissions that must never be Accepted: an endless loop, an
unbounded allocation, exiting early, printing (or forging) a report, an always-equal object,
monkeypatching the harness or builtins, flooding the output, leaving a process behind."""

from __future__ import annotations

import textwrap
from concurrent.futures import ThreadPoolExecutor

import pytest
from exercise_support import WORKERS

from harness import catalog
from harness.grade import grade
from harness.runner import Limits

EXERCISE = "graph-walk"
SHORT = Limits(time_s=3.0, memory_mb=384)  # for the submissions that must time out
ROOMY = Limits(time_s=30.0, memory_mb=384)  # for the rest: a loaded machine must not time them out

CORRECT = catalog.find(EXERCISE).reference_source()


def _code(body: str) -> str:
    return textwrap.dedent(body)


HOSTILE = {
    "infinite_loop": (_code("""
        def walk(fn):
            while True:
                pass
        unique_nodes = leaf_tensors = walk
        """), "Time Limit Exceeded"),
    "sleep_forever_at_import": (_code("""
        import time
        time.sleep(60)
        """), "Time Limit Exceeded"),
    "memory_bomb": (_code("""
        def walk(fn):
            blocks = []
            while True:
                blocks.append(bytearray(50 * 1024 * 1024))
        unique_nodes = leaf_tensors = walk
        """), "Memory Limit Exceeded"),
    "memory_bomb_at_import": (_code("""
        hoard = [bytearray(64 * 1024 * 1024) for _ in range(1000)]
        """), "Memory Limit Exceeded"),
    "os_exit_zero_in_test": (CORRECT + _code("""
        import os
        def leaf_tensors(fn):
            os._exit(0)
        """), "Runtime Error"),
    "os_exit_zero_at_import": (_code("""
        import os
        os._exit(0)
        """), "Runtime Error"),
    "sys_exit_zero_at_import": (_code("""
        import sys
        sys.exit(0)
        """), "Runtime Error"),
    "sys_exit_zero_in_test": (CORRECT + _code("""
        import sys
        def leaf_tensors(fn):
            sys.exit(0)
        """), "Runtime Error"),
    "prints_fake_report": (_code("""
        import json, sys
        report = {"verdict": "Accepted", "tests": [], "summary": {"passed": 16, "total": 16}}
        print(json.dumps(report))
        sys.stdout.write("@@kael-judge:0000 {\\"event\\": \\"done\\"}\\n")
        sys.__stdout__.write(json.dumps(report) + "\\n")
        import os
        os.write(1, (json.dumps(report) + "\\n").encode())
        os._exit(0)
        """), "Runtime Error"),
    "forges_frames_with_the_nonce": (_code("""
        import gc, os
        for obj in gc.get_objects():
            if type(obj).__name__ == "_Channel":
                for name in ["test_walk_mul_then_sum", "test_walk_skips_constant"]:
                    obj.send(event="case", name=name, value=["SumBackward"])
                obj.send(event="done")
        os._exit(0)
        """), "Runtime Error"),
    "always_equal_object": (_code("""
        class AlwaysEqual(list):
            def __eq__(self, other):
                return True
            def __ne__(self, other):
                return False
            __hash__ = None
        def walk(fn):
            return AlwaysEqual()
        unique_nodes = leaf_tensors = walk
        """), "Runtime Error"),
    "patches_the_child_encoder": (_code("""
        import sys
        main = sys.modules["__main__"]
        main.plain = lambda value: ["SumBackward", "  MulBackward", "    AccumulateGrad", "    AccumulateGrad"]
        def walk(fn):
            return None
        unique_nodes = leaf_tensors = walk
        """), "Runtime Error"),
    "patches_builtins": (_code("""
        import builtins
        builtins.isinstance = lambda obj, cls: True
        builtins.len = lambda obj: 0
        def walk(fn):
            return []
        unique_nodes = leaf_tensors = walk
        """), None),
    "floods_output": (CORRECT + _code("""
        import sys
        def walk(fn):
            while True:
                sys.stderr.write("x" * 65536)
        """), "Runtime Error"),
    "leaves_a_process_behind": (CORRECT + _code("""
        import os, time
        _walk = walk
        def walk(fn):
            if os.fork() == 0:
                time.sleep(30)
                os._exit(0)
            return _walk(fn)[:1]
        """), "Wrong Answer"),
    "raises_at_import": (_code("""
        raise RuntimeError("broken on purpose")
        """), "Runtime Error"),
    "keyboard_interrupt_in_test": (CORRECT + _code("""
        def walk(fn):
            raise KeyboardInterrupt
        """), "Runtime Error"),
}


@pytest.fixture(scope="module")
def hostile_reports():
    with ThreadPoolExecutor(WORKERS) as pool:
        futures = {name: pool.submit(grade, EXERCISE, code,
                                     limits=SHORT if verdict == "Time Limit Exceeded" else ROOMY)
                   for name, (code, verdict) in HOSTILE.items()}
        return {name: f.result() for name, f in futures.items()}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_submission_is_not_accepted(hostile_reports, name):
    report = hostile_reports[name]
    assert report["verdict"] != "Accepted"
    expected = HOSTILE[name][1]
    if expected is not None:
        assert report["verdict"] == expected, report["message"]


def test_accepted():
    report = grade(EXERCISE, CORRECT)
    assert report["verdict"] == "Accepted"
    assert report["graded"] is True
    assert all(t["status"] == "passed" for t in report["tests"])
    assert any(t["hidden"] for t in report["tests"]) and any(not t["hidden"] for t in report["tests"])


def test_wrong_answer_names_call_result_and_expectation():
    code = CORRECT.replace('lines.append("  " * depth + node.name())', 'lines.append(" " * depth + node.name())')
    report = grade(EXERCISE, code, public_only=True)
    assert report["verdict"] == "Wrong Answer"
    failed = next(t for t in report["tests"] if t["status"] == "failed")
    assert failed["description"].startswith("walk(y.grad_fn)")
    assert "returned ['SumBackward', ' MulBackward'" in failed["message"]
    assert "expected ['SumBackward', '  MulBackward'" in failed["message"]
    assert "first difference at [1]" in failed["message"]


def test_public_only_runs_no_hidden_test():
    report = grade(EXERCISE, CORRECT, public_only=True)
    assert report["public_only"] is True
    assert report["tests"] and not any(t["hidden"] for t in report["tests"])


def test_hidden_values_can_be_kept_out_of_messages():
    code = CORRECT.replace("order.append(node)", "order.append(node); order.append(node)")
    report = grade(EXERCISE, code, reveal_hidden=False)
    hidden = [t for t in report["tests"] if t["hidden"] and t["status"] == "failed"]
    assert hidden
    assert all("AccumulateGrad" not in t["message"] for t in hidden)


def test_hidden_test_source_stays_out_of_tracebacks():
    code = CORRECT.replace("def leaf_tensors(fn):\n", "def leaf_tensors(fn):\n    raise ValueError('mine')\n")
    report = grade(EXERCISE, code, reveal_hidden=False)
    hidden = [t for t in report["tests"] if t["hidden"] and t["status"] == "error"]
    assert hidden
    for t in hidden:
        assert "ValueError: mine" in t["message"]
        assert 'File "graph_walk.py"' in t["message"]
        assert "hidden_test.py" not in t["message"]
    public = [t for t in report["tests"] if not t["hidden"] and t["status"] == "error"]
    assert any("public_test.py" in t["message"] for t in public)


def test_syntax_error_has_line_and_column():
    report = grade(EXERCISE, "import kael\n\ndef walk(fn:\n    return []\n")
    assert report["verdict"] == "Syntax Error"
    error = report["syntax_error"]
    assert error["line"] == 3
    assert error["column"] >= 9
    assert "def walk(fn:" in error["text"]
    assert report["tests"] == []


def test_indentation_error_is_a_syntax_error():
    report = grade(EXERCISE, "def walk(fn):\nreturn []\n")
    assert report["verdict"] == "Syntax Error"
    assert report["syntax_error"]["line"] == 2


def test_runtime_error_carries_the_learners_traceback():
    code = CORRECT.replace("def walk(fn):\n", "def walk(fn):\n    1 / 0\n")
    report = grade(EXERCISE, code, public_only=True)
    assert report["verdict"] == "Runtime Error"
    message = next(t for t in report["tests"] if t["status"] == "error")["message"]
    assert "ZeroDivisionError" in message
    assert 'File "graph_walk.py"' in message
    assert "child.py" not in message


def test_printing_is_shown_as_output_and_does_not_break_grading():
    code = CORRECT + '\nprint("hello from the learner")\n'
    report = grade(EXERCISE, code, public_only=True)
    assert report["verdict"] == "Accepted"
    assert "hello from the learner" in report["output"]


def test_time_limit_marks_the_unfinished_test():
    report = grade(EXERCISE, HOSTILE["infinite_loop"][0], limits=Limits(time_s=1.5), public_only=True)
    assert report["verdict"] == "Time Limit Exceeded"
    unfinished = [t for t in report["tests"] if "time limit" in t["message"]]
    assert len(unfinished) == 1
