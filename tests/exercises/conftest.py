"""Fixtures of the exercise tests: every reference, starter and mutant graded once per session,
in parallel, through the same grade() that judge.py uses."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest
from exercise_support import SUBMISSIONS, WORKERS

from harness import catalog
from harness.grade import grade, reference_outcomes


@pytest.fixture(scope="session")
def graded():
    """``{(exercise id, name): report}`` for every row of SUBMISSIONS."""
    # References first (one per exercise, in parallel), so the submissions reuse the cached
    # expected outcomes instead of racing to compute them.
    with ThreadPoolExecutor(WORKERS) as pool:
        list(pool.map(reference_outcomes, catalog.load_all()))
        futures = {
            (ex_id, name): pool.submit(grade, ex_id, source)
            for ex_id, _, name, source in SUBMISSIONS
        }
        return {key: f.result() for key, f in futures.items()}
