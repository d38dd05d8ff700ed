"""The one grading harness (``exercises/harness``, standard library only), imported for the server.

The harness is a top-level package ``harness`` that lives in the ``exercises/`` folder, as
``judge.py`` uses it; this module puts that folder on ``sys.path`` once and re-exports what the
server needs.
"""

import sys

from server.core.config import REPO

_HARNESS_HOME = str(REPO / "exercises")
if _HARNESS_HOME not in sys.path:
    sys.path.insert(0, _HARNESS_HOME)

from harness import catalog  # noqa: E402
from harness.catalog import Exercise, UnknownExercise  # noqa: E402
from harness.grade import HarnessError, grade  # noqa: E402
from harness.runner import Limits, LocalRunner, RunResult, kill_group, run_process  # noqa: E402

__all__ = ["catalog", "Exercise", "UnknownExercise", "HarnessError", "grade", "Limits",
           "LocalRunner", "RunResult", "kill_group", "run_process"]
