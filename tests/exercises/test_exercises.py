"""Every reference solution and every variant (a correct solution written differently) is
Accepted, every starter and every mutant is not, through the
same grade() that `judge.py check` uses; the hidden tests alone reject every mutant; public
tests' inline expected values agree with the reference."""

from __future__ import annotations

import pytest
from exercise_support import SUBMISSIONS

from harness import catalog
from harness.compare import compare_outcomes
from harness.grade import reference_outcomes
from harness.inprocess import _inline_expected, run_public

ACCEPTED = "Accepted"


def _ids(kind):
    return [pytest.param(ex, name, id=f"{ex}:{name}") for ex, k, name, _ in SUBMISSIONS if k == kind]


def _failures(report):
    return "\n".join(
        f"{t['name']}: {t['status']}: {t['message']}" for t in report["tests"] if t["status"] != "passed"
    ) + ("\n" + report["output"][-2000:] if report["output"] else "")


@pytest.mark.parametrize("exercise,name", _ids("reference"))
def test_reference_is_accepted(graded, exercise, name):
    report = graded[(exercise, name)]
    assert report["verdict"] == ACCEPTED, _failures(report)
    assert report["summary"]["passed"] == report["summary"]["total"] > 0


@pytest.mark.parametrize("exercise,name", _ids("variant"))
def test_correct_solution_written_differently_is_accepted(graded, exercise, name):
    report = graded[(exercise, name)]
    assert report["verdict"] == ACCEPTED, f"variant {name} of {exercise}:\n" + _failures(report)


@pytest.mark.parametrize("exercise,name", _ids("starter"))
def test_starter_is_not_accepted(graded, exercise, name):
    report = graded[(exercise, name)]
    assert report["verdict"] != ACCEPTED
    assert report["summary"]["passed"] < report["summary"]["total"]


@pytest.mark.parametrize("exercise,name", _ids("mutant"))
def test_mutant_is_rejected_by_hidden_tests(graded, exercise, name):
    report = graded[(exercise, name)]
    assert report["verdict"] != ACCEPTED, f"mutant {name} of {exercise} was accepted"
    hidden_not_passed = [t["name"] for t in report["tests"] if t["hidden"] and t["status"] != "passed"]
    assert hidden_not_passed, f"only public tests reject mutant {name} of {exercise}"


@pytest.mark.parametrize("exercise", [e.id for e in catalog.load_all()])
def test_inline_expected_values_agree_with_reference(exercise):
    e = catalog.find(exercise)
    outcomes = reference_outcomes(e)
    namespace = {}
    exec(compile(e.public_tests_source(), e.test_file, "exec"), namespace)
    for case in e.public_cases():
        if getattr(case, "min_accuracy", None) is not None:
            continue  # a scored case: its labels come from the reference's run
        inline = _inline_expected(namespace[case.name])
        assert inline is not None, f"{case.name} has no inline expected value (.expected or .raises)"
        status, message = compare_outcomes(inline, outcomes[case.name], case.tolerance)
        assert status == "passed", f"{case.name}: inline {message}"
    report = run_public(e.reference_source(), e.public_tests_source(), e.module_name, exercise_id=e.id)
    assert report["verdict"] == ACCEPTED, _failures(report)
