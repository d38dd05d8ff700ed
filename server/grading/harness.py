"""The one grading harness (``exercises/harness``, standard library only), as the server uses it.

``harness`` is an ordinary package of the project: the editable install puts ``exercises/`` on
the import path (``dev-mode-dirs`` in pyproject.toml), as running ``judge.py`` does for itself.
"""

from harness import catalog
from harness.catalog import Exercise, UnknownExercise
from harness.grade import HarnessError, grade
from harness.runner import (
    CPU, Limits, LocalRunner, RunResult, cpu_limit_reached, kill_group, run_process, run_queue_wait,
)

__all__ = ["catalog", "Exercise", "UnknownExercise", "HarnessError", "grade", "Limits", "CPU",
           "LocalRunner", "RunResult", "cpu_limit_reached", "kill_group", "run_process", "run_queue_wait"]
