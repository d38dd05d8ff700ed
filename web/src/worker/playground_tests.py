"""Runs an exercise's public tests in this process with the exercise harness (feedback only:
the verdict that counts comes from the judge server). The page writes the harness package under
HARNESS_ROOT before the first run."""

from __future__ import annotations

import importlib
import sys

HARNESS_ROOT = "/home/pyodide/kael_exercises"


def run_public_tests(request: dict) -> dict:
    if HARNESS_ROOT not in sys.path:
        sys.path.insert(0, HARNESS_ROOT)
    importlib.invalidate_caches()
    from harness.inprocess import run_public

    return run_public(
        request["code"],
        request["tests_source"],
        request["module"],
        exercise_id=request["exercise_id"],
        solution_file=request["solution_file"],
        test_file=request["test_file"],
    )
