"""Untrusted code is compiled only in the child: the grading process never compiles or parses
a submission, and everything the compiler raises on hostile source is the learner's verdict."""

from __future__ import annotations

import ast
import builtins

import pytest

from harness.grade import grade
from harness.runner import Limits

EXERCISE = "graph-walk"
SHORT = Limits(time_s=10.0, memory_mb=384)
MARK = "# submission-" + "under-test-4f1c"  # never spelled whole in this file


@pytest.fixture
def no_compile_here(monkeypatch):
    """Fail the test if this (the grading) process compiles or parses the submission."""
    real_compile, real_parse = builtins.compile, ast.parse

    def guard(real):
        def checked(source, *args, **kwargs):
            text = source.decode(errors="replace") if isinstance(source, bytes) else source
            assert not (isinstance(text, str) and MARK in text), "the submission was compiled in the grading process"
            return real(source, *args, **kwargs)
        return checked

    monkeypatch.setattr(builtins, "compile", guard(real_compile))
    monkeypatch.setattr(ast, "parse", guard(real_parse))


@pytest.mark.parametrize("source, line", [
    (f"{MARK}\nimport kael\n\ndef walk(fn:\n    return []\n", 4),
    (f"{MARK}\ndef walk(fn):\nreturn []\n", 3),
    (f"{MARK}\nx = 'a\0b'\n", 1),
])
def test_syntax_errors_come_from_the_child(no_compile_here, source, line):
    report = grade(EXERCISE, source, limits=SHORT)
    assert report["verdict"] == "Syntax Error"
    assert report["syntax_error"]["line"] == line
    assert report["tests"] == []


@pytest.mark.parametrize("source", [
    f"{MARK}\nx = " + "-" * 200_000 + "1\n",        # MemoryError in 3.11's parser
    f"{MARK}\nx = " + "(" * 250 + "1" + ")" * 250 + "\n",   # too many nested parentheses
    f"{MARK}\nx = " + "[" * 5000 + "]" * 5000 + "\n",
])
def test_code_too_deep_to_compile_is_the_learners_syntax_error(no_compile_here, source):
    report = grade(EXERCISE, source, limits=SHORT)
    assert report["verdict"] == "Syntax Error", report["message"]
    assert report["syntax_error"]["message"].startswith("SyntaxError")


def test_a_correct_submission_is_still_accepted_without_compiling_here(no_compile_here):
    from harness import catalog

    report = grade(EXERCISE, MARK + "\n" + catalog.find(EXERCISE).reference_source(), limits=SHORT)
    assert report["verdict"] == "Accepted", report["message"]


@pytest.mark.parametrize("text", ["²", "١", "𝟙"])
def test_an_exercise_number_in_other_digits_is_unknown_not_a_crash(text):
    from harness import catalog

    with pytest.raises(catalog.UnknownExercise):
        catalog.find(text)
