"""Trace diff for the engine exercises: the learner's run of the first failing public case
against the reference's, step by step, in the report and in judge.py's text; only public cases,
nothing for accepted submissions or for exercises without traces."""

from __future__ import annotations

import json

import pytest
from exercise_support import EXERCISES  # noqa: F401  (puts the harness on sys.path)

from harness import catalog
from harness.report import format_text
from harness.tracediff import TRACED, first_divergence, format_trace_diff


def _hidden_names(exercise):
    return {c.name for c in catalog.find(exercise).hidden_cases()}


@pytest.mark.parametrize("exercise", sorted(TRACED))
def test_references_have_no_trace_diff(graded, exercise):
    assert graded[(exercise, "reference")]["trace_diff"] is None


@pytest.mark.parametrize("exercise", sorted(TRACED))
def test_every_traced_mutant_gets_a_public_trace(graded, exercise):
    e = catalog.find(exercise)
    public = {c.name for c in e.public_cases()}
    for name in e.mutants():
        report = graded[(exercise, name)]
        d = report["trace_diff"]
        if not any(t["status"] != "passed" and not t["hidden"] for t in report["tests"]):
            assert d is None, f"{name}: a trace without a failing public case"
            continue
        assert d is not None and d["case"] in public, name
        text = json.dumps(d)
        assert not any(h in text for h in _hidden_names(exercise)), f"{name}: the trace names a hidden test"
        assert d["reference_steps"] or d["reference_error"], name  # the reference may raise (a rule)
        assert d["step"] is not None or d["yours_error"] != d["reference_error"] or d["yours_steps"] == d["reference_steps"]


def test_overwriting_buffers_diverges_at_the_leaf_with_the_wrong_gradient(graded):
    d = graded[("backward-engine", "overwrite_buffers")]["trace_diff"]
    assert d["step"] is not None and d["agree"] == d["step"] - 1
    assert d["yours"]["node"] == d["reference"]["node"] == "AccumulateGrad(x)"
    assert d["yours"]["leaf"] and d["yours"]["grad"] != d["reference"]["grad"]
    assert d["yours_steps"][: d["agree"]] == d["reference_steps"][: d["agree"]]


def test_no_dependency_count_runs_a_node_too_early(graded):
    d = graded[("backward-engine", "no_dependency_count")]["trace_diff"]
    assert d["yours"]["node"] != d["reference"]["node"]
    assert d["yours"]["node"].startswith("AccumulateGrad")


def test_counting_parents_shows_the_counts_going_negative(graded):
    d = graded[("dependency-count", "counts_parents")]["trace_diff"]
    mine = [s["count"] for s in d["yours"]["sends"]]
    ref = [s["count"] for s in d["reference"]["sends"]]
    assert mine != ref and [0, -1] in mine and ref[-1] == [1, 0]


def test_text_report_shows_the_first_diverging_step_in_both_languages(graded):
    report = graded[("backward-engine", "overwrite_buffers")]
    en = format_text(report)
    d = report["trace_diff"]
    assert f"Trace of {d['case']} (public)" in en and f"step {d['step']} differs:" in en
    assert "AccumulateGrad(x)" in en
    zh = format_text(report, lang="zh")
    assert f"第 {d['step']} 步不同" in zh


def test_exercises_without_traces_have_none(graded):
    report = graded[("view-backward", "narrow_copies")]
    assert report["verdict"] != "Accepted" and report["trace_diff"] is None


def test_first_divergence():
    a = [{"node": "n", "grad": {"values": [1.0, 2.0]}}]
    assert first_divergence(a, [{"node": "n", "grad": {"values": [1.0, 2.0 + 1e-9]}}]) is None
    assert first_divergence(a, [{"node": "n", "grad": {"values": [1.0, 2.1]}}]) == 0
    assert first_divergence(a, a + a) == 1 and first_divergence(a + a, a) == 1
    assert first_divergence([], []) is None
    nan = [{"grad": {"values": [float("nan")]}}]
    assert first_divergence(nan, nan) is None and first_divergence(nan, a) == 0


def test_format_of_a_run_that_raised_before_any_step():
    d = {"case": "test_x", "mode": "engine", "step": 1, "agree": 0, "yours": None,
         "reference": {"node": "SumBackward", "grad": {"shape": [], "values": [1.0], "more": 0}, "sends": []},
         "yours_steps": [], "reference_steps": [], "yours_error": {"type": "NotImplementedError", "message": "implement it"},
         "reference_error": None}
    text = format_trace_diff(d)
    assert "step 1 differs:" in text and "(no such step)" in text and "SumBackward" in text
    assert "your run raised NotImplementedError: implement it" in text


# -- deep chain: the learner's count_nodes/depth asked of every node, children first ---------------

def _deep_chain_trace(code, case):
    from harness.childrun import child_env
    from harness.runner import LocalRunner
    from harness.tracediff import trace_diff

    e = catalog.find("deep-chain")
    tests = [{"name": case, "hidden": False, "status": "failed"}]
    return trace_diff(e, code, tests, runner=LocalRunner(), env=child_env(None), limits=e.limits())


def _off_by_one_at(kind, function):
    """The reference, except that ``function`` answers one too many at nodes of class ``kind``."""
    source = catalog.find("deep-chain").reference_source()
    return source + f"""

_right_{function} = {function}


def {function}(fn):
    return _right_{function}(fn) + (1 if type(fn).__name__ == {kind!r} else 0)
"""


def _public_graph_kinds():
    """(case, node class, 1-based post-order position of its first node), for every class of
    node in the graphs of the small public cases, by the same walk as the tracer's."""
    from harness import tracechild

    rows = []
    e = catalog.find("deep-chain")
    namespace = {}
    exec(compile(e.public_tests_source(), "deep_chain_test.py", "exec"), namespace)
    for case in ("test_small_chain", "test_diamond", "test_short_and_long_path"):
        roots = []

        class Spy:
            def count_nodes(self, fn):
                roots.append(fn)
                return 0

            def depth(self, fn):
                return 0

        namespace[case](Spy())
        order = tracechild._post_order(roots[0])
        for i, node in enumerate(order):
            kind = type(node).__name__
            if (case, kind) not in {(c, k) for c, k, _ in rows}:
                rows.append((case, kind, i + 1))
    return rows


@pytest.mark.parametrize("function", ["count_nodes", "depth"])
def test_a_wrong_deep_chain_walk_diverges_at_the_first_node_it_gets_wrong(function):
    """A seeded sample of wrong walks (one function off by one at one class of node): the trace
    diff's first differing step is the lowest node of that class, with both values shown."""
    import random

    rows = _public_graph_kinds()
    for case, kind, position in random.Random(1216 + len(function)).sample(rows, 4):
        d = _deep_chain_trace(_off_by_one_at(kind, function), case)
        assert d is not None and d["case"] == case and d["mode"] == "walk"
        assert d["step"] == position, (case, kind, d["step"])
        assert d["yours"]["node"] == d["reference"]["node"] and d["yours"]["node"].startswith(kind)
        assert d["yours"][function] == d["reference"][function] + 1
        other = "depth" if function == "count_nodes" else "count_nodes"
        assert d["yours"][other] == d["reference"][other]
        assert d["yours_steps"][: d["agree"]] == d["reference_steps"][: d["agree"]]


def test_deep_chain_mutants_name_the_node_and_the_value(graded):
    d = graded[("deep-chain", "first_reached_level")]["trace_diff"]
    assert d["case"] == "test_short_and_long_path" and d["yours"]["node"] == "AddBackward"
    assert (d["yours"]["depth"], d["reference"]["depth"]) == (3, 4)
    assert [c["depth"] for c in d["yours"]["children"]] == [1, 3]  # 1 + max(1, 3) is 4
    d = graded[("deep-chain", "no_seen_set")]["trace_diff"]
    assert d["case"] == "test_diamond" and d["yours"]["node"] == "AddBackward"
    assert (d["yours"]["count_nodes"], d["reference"]["count_nodes"]) == (5, 4)
    text = format_trace_diff(d)
    assert "step 4 differs:" in text and "count_nodes()  5" in text


def test_a_recursive_depth_breaks_at_the_root_of_the_deep_public_chain():
    code = catalog.find("deep-chain").mutants()["recursive_depth"]
    d = _deep_chain_trace(code, "test_chain_deeper_than_recursion_limit")
    assert d["yours"]["order"] == d["yours"]["of"] == 3001 and d["step"] == len(d["reference_steps"])
    assert d["yours"]["depth"].startswith("RecursionError") and d["reference"]["depth"] == 3001
    assert d["yours_error"]["type"] == "RecursionError" and d["reference_error"] is None
    zh = format_trace_diff(d, "zh")
    assert f"第 {d['step']} 步不同" in zh and "RecursionError" in zh
