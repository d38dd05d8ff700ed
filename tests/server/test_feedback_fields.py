"""The learner's report carries the known-mistake messages and the trace diff of the run
WITHOUT hidden tests only: whatever the full run (which can read the hidden tests) says in those
fields never reaches the learner, and the public run's values pass through unchanged."""

from __future__ import annotations

import json

from server.grading.report import public_report

PUBLIC_TESTS = [{"name": "test_p0", "status": "failed", "hidden": False, "description": "d0",
                 "message": "returned 2, expected 3", "duration_ms": 1.0}]
MISTAKE = {"mutant": "overwrite_buffers", "message": {"en": "are you overwriting?", "zh": "是否覆盖？"}}
TRACE = {"case": "test_p0", "mode": "engine", "step": 2, "agree": 1, "yours": None, "reference": None,
         "yours_steps": [], "reference_steps": [], "yours_error": None, "reference_error": None}


def _full(mistakes, trace):
    tests = PUBLIC_TESTS + [{"name": "test_h0", "status": "failed", "hidden": True, "description": "secret",
                             "message": "secret", "duration_ms": 3.0}]
    return {"verdict": "Wrong Answer", "message": "m", "tests": tests, "output": "", "syntax_error": None,
            "backend": "python", "mistakes": mistakes, "trace_diff": trace}


def _public(mistakes, trace):
    return {"verdict": "Wrong Answer", "message": "test_p0: returned 2", "tests": PUBLIC_TESTS, "output": "",
            "mistakes": mistakes, "trace_diff": trace}


def test_the_full_runs_feedback_never_reaches_the_learner():
    shown = {json.dumps(public_report(_full(m, t), _public([], None)), sort_keys=True)
             for m in ([], [MISTAKE], [{"mutant": "hidden-dependent", "message": {"en": "x", "zh": "x"}}])
             for t in (None, TRACE, {**TRACE, "case": "test_h0"})}
    assert len(shown) == 1
    report = json.loads(shown.pop())
    assert report["mistakes"] == [] and report["trace_diff"] is None


def test_the_public_runs_feedback_passes_through():
    report = public_report(_full([], None), _public([MISTAKE], TRACE))
    assert report["mistakes"] == [MISTAKE] and report["trace_diff"] == TRACE


def test_an_accepted_submission_has_no_feedback():
    full = {"verdict": "Accepted", "message": "ok", "tests": [{**PUBLIC_TESTS[0], "status": "passed"}],
            "output": "", "syntax_error": None, "backend": "python", "mistakes": [MISTAKE], "trace_diff": TRACE}
    report = public_report(full, None)
    assert report["mistakes"] == [] and report["trace_diff"] is None


def test_a_wrong_deep_chain_walk_gets_the_public_trace_diff_and_nothing_from_hidden_cases():
    """Through the server's grading (LocalRunner: the sandbox is tested elsewhere): a depth that
    takes the first level a node is reached at diverges at the Add node of a public case; a walk
    that fails hidden cases only gets neither a trace nor a known mistake."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "exercises"))
    from harness import catalog
    from harness.runner import LocalRunner

    from server.grading.report import grade_submission

    e = catalog.find("deep-chain")
    report = grade_submission(e, e.mutants()["first_reached_level"], LocalRunner())
    d = report["trace_diff"]
    assert report["verdict"] == "Wrong Answer" and d["mode"] == "walk"
    assert (d["case"], d["step"], d["yours"]["node"]) == ("test_short_and_long_path", 4, "AddBackward")
    assert (d["yours"]["depth"], d["reference"]["depth"]) == (3, 4)
    assert [m["mutant"] for m in report["mistakes"]] == ["first_reached_level"]
    # Every hand-written mutant of deep-chain now fails a public test (issue 21 item 4): this
    # walk is wrong only for a leaf's node asked alone, which no public test asks.
    reference = (Path(__file__).resolve().parents[2] / "exercises" / "12-deep-chain" / ".meta" / "reference.py").read_text()
    leaf_alone_wrong = reference.replace("def depth(fn):\n", "def depth(fn):\n    if not _children(fn):\n        return 0\n")
    assert leaf_alone_wrong != reference
    hidden_only = grade_submission(e, leaf_alone_wrong, LocalRunner())
    assert hidden_only["verdict"] == "Wrong Answer" and hidden_only["hidden"]["first_failed"]
    assert all(t["status"] == "passed" for t in hidden_only["tests"])
    assert hidden_only["trace_diff"] is None and hidden_only["mistakes"] == []


def test_the_headline_comes_from_the_test_that_decided_the_verdict():
    """A Runtime Error raised by a hidden test is not headlined by a public test that merely
    failed (issue 21 item 5); a public test that raised is."""
    full = {**_full([], None), "verdict": "Runtime Error"}
    full["tests"] = PUBLIC_TESTS + [{"name": "test_h0", "status": "error", "hidden": True,
                                     "description": "secret", "message": "secret", "duration_ms": 3.0}]
    report = public_report(full, _public([], None))
    assert report["message"] == "a hidden test raised an exception (the first hidden test not passed: test_h0)"
    raised = [{**PUBLIC_TESTS[0], "status": "error", "message": "ZeroDivisionError: division by zero"}]
    report = public_report(full, {**_public([], None), "tests": raised})
    assert report["message"] == "test_p0: ZeroDivisionError: division by zero"


def test_a_stored_report_holds_only_text_and_shallow_traces():
    """What a forged frame could leave in a report (a lone surrogate, a trace nested 300 deep)
    is made answerable before it is stored or answered (red-team findings 1 and 9)."""
    from server.grading.report import bounded

    deep = node = {}
    for _ in range(300):
        node["a"] = {}
        node = node["a"]
    report = bounded({"message": "x\ud800", "tests": [{"name": "t", "message": "\udfff"}], "trace_diff": deep,
                      "mistakes": [{"mutant": "m\ud800", "message": {"en": "e"}}]})
    json.dumps(report, ensure_ascii=False).encode("utf-8")  # encodable: no lone surrogate left
    assert report["trace_diff"] is None and report["message"].startswith("x")
