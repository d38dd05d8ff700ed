"""Declared domains (harness/domain.py) and the differential oracle (harness/oracle.py).

Per exercise that declares a domain: every declared class is produced by its generator (run
in this process against the reference), the generators are reproducible, and a correct run
compares equal to itself. The oracle: exact types, dtypes, shapes, absolute and relative
tolerance, exceptions, side effects, and messages that say "case k of n"."""

from __future__ import annotations

import importlib.util
import math
import sys

import pytest
from exercise_support import EXERCISES  # noqa: F401  (puts the harness on sys.path)

from harness import catalog
from harness import domain as judge_domain
from harness.compare import Tolerance, compare_outcomes
from harness.oracle import compare_domain

sys.modules.setdefault("judge_domain", judge_domain)  # what the child's task directory holds


def _load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _declared():
    rows = []
    for e in catalog.load_all():
        if "DOMAIN = Domain(" in e.hidden_tests_source():
            rows.append(e)
    return rows


DECLARED = _declared()


@pytest.fixture(scope="module")
def loaded():
    """``{exercise id: (hidden test module, reference module)}``, loaded in this process."""
    out = {}
    for e in DECLARED:
        sys.modules.setdefault("public_test", None)
        public = _load(e.path / e.test_file, f"public_test_{e.number}")
        sys.modules["public_test"] = public  # hidden tests may import helpers from it
        hidden = _load(e.path / ".meta" / "hidden_test.py", f"hidden_test_{e.number}")
        out[e.id] = (hidden, _load(e.path / ".meta" / "reference.py", f"reference_{e.number}"))
    return out


@pytest.mark.parametrize("exercise", [e.id for e in DECLARED])
def test_generator_produces_each_declared_class(loaded, exercise):
    hidden, reference = loaded[exercise]
    assert hidden.DOMAIN.generators, "a declared domain has at least one generator"
    for name, (_, cases, classes) in hidden.DOMAIN.generators.items():
        produced = hidden.DOMAIN.classes(name, reference)
        missing = [c for c in classes if c not in produced]
        assert not missing, f"{exercise} {name}: {cases} cases never produce {missing}"


@pytest.mark.parametrize("exercise", [e.id for e in DECLARED])
def test_each_generator_is_run_by_a_hidden_case_and_is_reproducible(loaded, exercise):
    hidden, reference = loaded[exercise]
    source = catalog.find(exercise).hidden_tests_source()
    for name in hidden.DOMAIN.generators:
        assert f'DOMAIN.run(m, "{name}"' in source, f"{exercise}: no hidden case runs {name}"
        first = hidden.DOMAIN.run(reference, name)
        assert compare_domain(first, hidden.DOMAIN.run(reference, name)) == ("passed", "")


def test_seeds_are_fixed_per_judge_version():
    a = judge_domain.seed_of("sum-to", "sum_to", 36)
    assert a == judge_domain.seed_of("sum-to", "sum_to", 36)
    assert a != judge_domain.seed_of("sum-to", "sum_to", 37)
    assert a != judge_domain.seed_of("sum-to", "sum_to", 36, version="another")


# -- the oracle ------------------------------------------------------------------------------------


def _record(*steps, classes=("rank 0",), tolerance=None):
    case = {"classes": list(classes), "input": ["float32[] 1.0"], "steps": list(steps)}
    return {"kind": judge_domain.KIND, "name": "f", "version": "v", "cases": [case, case],
            "tolerance": tolerance or {}}


def _tensor(values, dtype="float32", shape=None, requires_grad=False):
    return ["Tensor", dtype, shape if shape is not None else [len(values)], requires_grad, None, values]


def _step(result=None, raised=None, changed=False, grad_enabled=True, grad=None):
    step = {"call": "f(x)"}
    if raised is not None:
        step["raised"] = raised
    else:
        step["result"] = result
    step["effects"] = [[0] if changed else [], [False], {"0": grad} if grad is not None else {}, grad_enabled]
    return step


def _compare(got_step, want_step, reveal=True, second_only=False):
    want = _record(want_step)
    got = _record(got_step)
    if second_only:
        got["cases"][0] = want["cases"][0]
    return compare_domain(got, want, reveal=reveal)


@pytest.mark.parametrize("got,want,same", [
    (1.0, 1.0 + 5e-6, True),               # relative: within rtol 1e-5 of float32
    (1.0, 1.0 + 5e-5, False),
    (1e-12, 1e-6, False),                  # a tiny value off by a million: within 1e-6 absolute, wrong
    (0.0, 5e-8, True),                     # absolute: within atol 1e-7 at scale 1
    (math.nan, math.nan, True),
    (math.inf, 3e38, False),
    (-0.0, 0.0, True),
])
def test_values_compare_with_absolute_and_relative_tolerance(got, want, same):
    status, _ = _compare(_step(_tensor([got])), _step(_tensor([want])))
    assert (status == "passed") is same


def test_the_absolute_tolerance_scales_with_the_tensor():
    status, _ = _compare(_step(_tensor([1e30, 1.0 + 1e20])), _step(_tensor([1e30, 1.0])))
    assert status == "passed"


def test_a_steps_scale_is_the_reference_steps_and_widens_the_absolute_tolerance_only():
    """A loss of logits near 1e31 compared at the logits' size (the reference's step says so);
    the submission's record cannot widen its own tolerance."""
    want, got = _step(_tensor([1.609])), _step(_tensor([0.0]))
    assert _compare(got, want)[0] == "failed"
    assert _compare(got, dict(want, scale=4e31))[0] == "passed"
    assert _compare(dict(got, scale=4e31), want)[0] == "failed"
    assert _compare(_step(_tensor([1.0])), dict(_step(_tensor([2.0])), scale=math.inf))[0] == "failed"


def test_a_grad_fn_compared_by_presence_when_the_reference_record_says_so():
    def fn(name):
        return ["Tensor", "float64", [1], True, name, [1.0]]
    want, got = _record(_step(fn("WhereBackward"))), _record(_step(fn("MulBackward")))
    assert compare_domain(got, want)[0] == "failed"
    assert compare_domain(got, dict(want, grad_fn="presence"))[0] == "passed"
    assert compare_domain(dict(got, grad_fn="presence"), want)[0] == "failed"
    missing = _record(_step(["Tensor", "float64", [1], True, None, [1.0]]))
    assert compare_domain(missing, dict(want, grad_fn="presence"))[0] == "failed"


@pytest.mark.parametrize("got,want,word", [
    (_tensor([1.0], "float64"), _tensor([1.0]), "dtype"),
    (_tensor([1.0], shape=[1, 1]), _tensor([1.0], shape=[1]), "shape"),
    (_tensor([1.0], requires_grad=True), _tensor([1.0]), "requires_grad"),
    (["list", []], ["tuple", []], "the result's type: got a list of 0 items, expected a tuple of 0 items"),
    (["float", 2.0], ["int", 2], "got float 2.0, expected int 2"),
    (["tuple", [["int", 1]]], ["tuple", [["int", 2]]], "the result[0]'s value: got int 1, expected int 2"),
])
def test_types_dtypes_and_shapes_are_exact(got, want, word):
    status, message = _compare(_step(got), _step(want))
    assert status == "failed" and word in message


def test_a_call_that_raises_where_the_reference_returns_is_an_error_that_names_it():
    raised = {"type": "TypeError", "message": "bad operand", "traceback": "Traceback ...\nTypeError: bad operand"}
    status, message = _compare(_step(raised=raised), _step(_tensor([1.0])), second_only=True)
    assert status == "error"
    assert message.startswith("case 2 of 2 (rank 0): f(x): raised TypeError: bad operand")


def test_exceptions_compare_by_type_and_message():
    want = _step(raised={"type": "ValueError", "message": "shapes [2] and [3] cannot be broadcast"})
    got = _step(raised={"type": "ValueError", "message": "no"})
    assert _compare(got, want)[0] == "failed"
    assert _compare(_step(_tensor([1.0])), want)[0] == "failed"
    assert _compare(want, want)[0] == "passed"


@pytest.mark.parametrize("got,word", [
    (_step(_tensor([1.0]), changed=True), "its values were changed"),
    (_step(_tensor([1.0]), grad_enabled=False), "grad mode"),
    (_step(_tensor([1.0]), grad=_tensor([2.0])), ".grad"),
])
def test_side_effects_are_compared(got, word):
    status, message = _compare(got, _step(_tensor([1.0])))
    assert status == "failed" and word in message


def test_hidden_messages_give_the_case_and_what_differs_but_not_the_input():
    status, message = _compare(_step(_tensor([2.0])), _step(_tensor([1.0])), reveal=False)
    assert status == "failed"
    assert message == "case 1 of 2 (rank 0): f(x): the result's values"
    hidden_type = _compare(_step(["list", []]), _step(["tuple", []]), reveal=False)[1]
    assert hidden_type == "case 1 of 2 (rank 0): f(x): the result's type"
    shown = _compare(_step(_tensor([2.0])), _step(_tensor([1.0])))[1]
    assert "input: float32[] 1.0" in shown and "element 0 (flat) is 2.0, expected 1.0" in shown


def test_a_record_with_fewer_cases_or_another_name_fails():
    want = _record(_step(_tensor([1.0])))
    short = dict(want, cases=want["cases"][:1])
    assert compare_domain(short, want)[0] == "failed"
    assert compare_domain(dict(want, name="g"), want)[0] == "failed"
    assert compare_domain([1, 2], want)[0] == "failed"


def test_compare_outcomes_hands_a_domain_record_to_the_oracle():
    want = _record(_step(_tensor([1.0])))
    got = _record(_step(_tensor([1.5])))
    status, message = compare_outcomes({"value": got}, {"value": want}, Tolerance())
    assert status == "failed" and message.startswith("case 1 of 2")


def test_a_gradcheck_error_in_a_generated_case_is_a_failure():
    raised = {"type": "kael.autograd.gradcheck.GradcheckError", "message": "Jacobian mismatch"}
    status, message = _compare(_step(raised=raised), _step(["bool", True]))
    assert status == "failed" and "raised kael.autograd.gradcheck.GradcheckError" in message
