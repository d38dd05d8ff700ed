"""The trusted comparison and the plain-data rule."""

from __future__ import annotations

import math

import pytest
from exercise_support import EXERCISES  # noqa: F401  (puts the harness on sys.path)

from harness.child import NotPlainData, plain
from harness.compare import Tolerance, compare_outcomes, first_difference

TOL = Tolerance(rtol=1e-4, atol=1e-6)


def status(actual, expected, tol=TOL):
    return compare_outcomes(actual, expected, tol)[0]


@pytest.mark.parametrize(
    "actual,expected,same",
    [
        (1.0, 1.00001, True),
        (1.0, 1.01, False),
        (0.0, 1e-7, True),
        (2, 2.0, True),
        (2, 3, False),
        (True, 1, False),
        (1, True, False),
        (math.nan, math.nan, True),
        (math.nan, 1.0, False),
        (1.0, math.nan, False),
        (math.inf, math.inf, True),
        (-math.inf, math.inf, False),
        (1e308, math.inf, False),
        ([1, 2], [1, 2], True),
        ([1, 2], [1, 2, 3], False),
        ((1, 2), [1, 2], False),  # tuples never reach the parent: the child turns them into lists
        ({"a": 1}, {"a": 1}, True),
        ({"a": 1}, {"b": 1}, False),
        (None, None, True),
        (None, 0, False),
        ("x", "x", True),
        ("x", "y", False),
    ],
)
def test_first_difference(actual, expected, same):
    assert (first_difference(actual, expected, TOL) is None) is same


def test_exceptions_compare_by_type_and_message():
    want = {"raised": {"type": "RuntimeError", "message": "boom"}}
    assert status({"raised": {"type": "RuntimeError", "message": "boom", "traceback": "..."}}, want) == "passed"
    assert status({"raised": {"type": "RuntimeError", "message": "other"}}, want) == "failed"
    assert status({"raised": {"type": "ValueError", "message": "boom"}}, want) == "failed"
    assert status({"value": None}, want) == "failed"
    assert status({"raised": {"type": "ValueError", "message": "boom"}}, {"value": 1}) == "error"


def test_missing_invalid_and_memory_outcomes_are_errors():
    assert status(None, {"value": 1}) == "error"
    assert status({"invalid": "a tensor"}, {"value": 1}) == "error"
    assert status({"memory": True}, {"value": 1}) == "error"


def test_deep_data_compares_without_recursion():
    deep_a, deep_b = [], []
    a, b = deep_a, deep_b
    for _ in range(50_000):
        a.append([])
        b.append([])
        a, b = a[0], b[0]
    b.append(1)
    assert first_difference(deep_a, deep_b, TOL) is not None


class Sneaky(int):
    def __eq__(self, other):
        return True

    __hash__ = int.__hash__


@pytest.mark.parametrize("value", [Sneaky(1), [Sneaky(1)], {"k": Sneaky(1)}, {1: 2}, object(), {"k": {1.5}}])
def test_plain_refuses_everything_else(value):
    with pytest.raises(NotPlainData):
        plain(value)


def test_plain_copies_and_turns_tuples_into_lists():
    data = {"a": (1, 2.5, [True, None, "s"])}
    assert plain(data) == {"a": [1, 2.5, [True, None, "s"]]}


def test_plain_refuses_too_deep_data():
    value = []
    for _ in range(500):
        value = [value]
    with pytest.raises(NotPlainData):
        plain(value)


@pytest.mark.parametrize("actual,expected", [(10**400, 0.5), ([1.0, -(2**1024)], [1.0, -math.inf]),
                                             (2**1024, math.nan), (0.5, 10**400)])
def test_an_int_beyond_the_float_range_is_a_wrong_answer_not_a_judge_error(actual, expected):
    value = actual if isinstance(actual, list) else [actual]
    want = expected if isinstance(expected, list) else [expected]
    result, message = compare_outcomes({"value": value}, {"value": want}, TOL)
    assert result == "failed"
    assert "too large to convert to a float" in message


def test_equal_ints_beyond_the_float_range_compare_exactly():
    assert first_difference([10**400], [10**400], TOL) is None
    assert first_difference([10**400 + 1], [10**400], TOL) is not None


def test_a_gradcheck_that_raises_inside_a_test_is_a_wrong_answer_not_a_runtime_error():
    raised = {"raised": {"type": "kael.autograd.gradcheck.GradcheckError",
                         "message": "Jacobian mismatch for output 0 with respect to input 0", "traceback": "..."}}
    status, message = compare_outcomes(raised, {"value": True}, TOL)
    assert status == "failed" and "gradcheck found a wrong gradient: Jacobian mismatch" in message
    assert compare_outcomes(raised, {"value": True}, TOL, reveal=False) == (
        "failed", "kael's gradcheck found a wrong gradient")
    other = {"raised": {"type": "TypeError", "message": "bad", "traceback": ""}}
    assert compare_outcomes(other, {"value": True}, TOL)[0] == "error"


def test_returned_and_expected_print_at_one_precision():
    status, message = compare_outcomes({"value": [0.30000001192092896, 1.0]}, {"value": [0.3, 2]}, TOL)
    assert status == "failed"
    assert message.splitlines()[:2] == ["returned [0.30000001, 1.0]", "expected [0.3, 2]"]
    assert "first difference at [1]: 1.0 instead of 2" in message
