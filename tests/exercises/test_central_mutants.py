"""Every mutant an exercise marks as getting its central idea wrong (``.meta/central_mutants.txt``)
fails at least one public test: "Run tests" in the browser gives real signal before Submit."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest
from exercise_support import WORKERS

from harness import catalog
from harness.grade import grade
from harness.report import ACCEPTED


def central_mutants(exercise) -> list:
    """The names listed in ``.meta/central_mutants.txt`` (``name  # why``; blank lines and
    comments skipped), or [] when the exercise has none."""
    path = exercise.path / ".meta" / "central_mutants.txt"
    if not path.exists():
        return []
    names = [line.split("#", 1)[0].strip() for line in path.read_text(encoding="utf-8").splitlines()]
    return [n for n in names if n]


ROWS = [(e.id, name) for e in catalog.load_all() for name in central_mutants(e)]


@pytest.fixture(scope="module")
def public_verdicts():
    """``{(exercise id, mutant): report}``: each central mutant graded on the public tests only."""
    with ThreadPoolExecutor(WORKERS) as pool:
        futures = {(ex, name): pool.submit(grade, ex, catalog.find(ex).mutants()[name], public_only=True,
                                           known_mistakes=False, trace=False)
                   for ex, name in ROWS}
        return {key: f.result() for key, f in futures.items()}


def test_the_first_eleven_exercises_mark_their_central_mutants():
    marked = {e.number for e in catalog.load_all() if central_mutants(e)}
    assert set(range(1, 12)) <= marked


@pytest.mark.parametrize("exercise,name", ROWS)
def test_a_central_mutant_fails_a_public_test(public_verdicts, exercise, name):
    assert name in catalog.find(exercise).mutants(), f"{exercise}: no mutant {name}"
    report = public_verdicts[(exercise, name)]
    assert report["verdict"] != ACCEPTED, f"{exercise}: the public tests accept {name}"
