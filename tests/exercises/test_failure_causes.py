"""Failure messages keep the cause: a crash (a signal) names the test that was running, not only
"did not run"; a hidden test that catches an exception reports its message; without
reveal_hidden a known mistake is chosen from the public outcomes alone."""

from __future__ import annotations

import textwrap

import pytest
from exercise_support import EXERCISES  # noqa: F401  (puts the harness on sys.path)

from harness import catalog
from harness.grade import grade

CRASH_IN_SECOND_CALL = textwrap.dedent("""
    import os, signal
    calls = []

    def walk(fn):
        calls.append(1)
        if len(calls) == 2:
            os.kill(os.getpid(), signal.{sig})
        return []

    unique_nodes = leaf_tensors = walk
""")


@pytest.mark.parametrize("sig", ["SIGSEGV", "SIGABRT"])
def test_a_crash_names_the_test_that_was_running(sig):
    e = catalog.find("graph-walk")
    report = grade(e, CRASH_IN_SECOND_CALL.format(sig=sig), known_mistakes=False, trace=False)
    tests = report["tests"]
    second = tests[1]
    assert report["verdict"] == "Runtime Error"
    assert second["status"] == "error"
    assert second["message"].startswith("the program crashed while this test was running")
    assert sig in second["message"]
    assert all("did not run" in t["message"] for t in tests[2:])
    assert report["message"].endswith(f"while {second['name']} was running")


def test_a_caught_exception_keeps_its_message():
    e = catalog.find("matmul-backward")
    source = e.reference_source().replace("def backward(ctx, g):", "def backward(ctx, g):\n        raise ValueError('lost the shape of b')", 1)
    report = grade(e, source, known_mistakes=False)
    gradcheck = next(t for t in report["tests"] if t["name"] == "test_gradcheck")
    assert "ValueError: lost the shape of b" in gradcheck["message"]


def test_without_reveal_hidden_the_mistake_comes_from_public_outcomes_only():
    e = catalog.find("layernorm-backward")
    # fails one hidden test only: nothing public to go on, so no message
    report = grade(e, e.mutants()["eps_ignored"], reveal_hidden=False, trace=False)
    assert report["verdict"] == "Wrong Answer" and report["mistakes"] == []
    # fails public tests too: the public outcomes name it
    report = grade(e, e.mutants()["stats_as_constants"], reveal_hidden=False, trace=False)
    assert "stats_as_constants" in [m["mutant"] for m in report["mistakes"]]


def test_public_only_grading_matches_on_public_outcomes():
    e = catalog.find("nonsmooth-reductions")
    report = grade(e, e.mutants()["where_nan_trap"], public_only=True)
    assert [m["mutant"] for m in report["mistakes"]] == ["where_nan_trap"]
