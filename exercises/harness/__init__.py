"""The one grading harness of the kael exercises (standard library only; CPython and Pyodide).

* ``catalog``: the exercises on disk (metadata, statements, hints, starter, tests).
* ``grade.grade(exercise, code, runner=None, public_only=False)``: the trusted path: the
  submission runs in a child process started by a ``Runner``; the verdict is decided here.
* ``inprocess.run_public(code, tests_source, module_name)``: public tests in this process
  (the browser), for feedback only.
* ``report``: the one report shape and the verdicts; ``compare``: the trusted comparison;
  ``runner``: the ``Runner`` protocol, ``Limits``, ``RunResult`` and ``LocalRunner``;
  ``child.py``: the script that runs in the untrusted process.

The contract is written down in README.md next to this file.
"""

from .catalog import Exercise, UnknownExercise, find, load_all
from .report import VERDICTS
from .runner import Limits, LocalRunner, RunResult, Runner

__all__ = ["Exercise", "UnknownExercise", "find", "load_all", "VERDICTS", "Limits", "LocalRunner",
           "RunResult", "Runner"]

# ``from harness.grade import grade`` (subprocesses: CPython) and
# ``from harness.inprocess import run_public`` (the browser) are imported where needed.
