"""Public tests run in this very process: the browser's path (Pyodide), for the learner's own
feedback. Nothing here is trusted: the submission runs beside the checks and could forge them,
so these reports carry ``"graded": false``; grading that counts goes through ``grade.grade``.

Expected values come from the public test file itself (``test_x.expected = ...`` or
``test_x.raises = ["RuntimeError", "message"]``), so the reference solution is not needed.
"""

from __future__ import annotations

import sys
import time
import types

from .catalog import parse_cases
from .child import NotPlainData, _outcome, plain
from .compare import compare_outcomes
from .report import check_syntax, decide, make_report, syntax_report, test_entry

__all__ = ["run_public"]


def _module(name, source, filename):
    module = types.ModuleType(name)
    module.__file__ = filename
    exec(compile(source, filename, "exec"), module.__dict__)
    return module


def run_public(code: str, tests_source: str, module_name: str, *, exercise_id: str = "",
               solution_file: str | None = None, test_file: str = "public_test.py") -> dict:
    """Run the public cases of ``tests_source`` against ``code`` here; the report dict.

    ``module_name`` is the exercise's module (``graph_walk``); the submission is installed
    under it in ``sys.modules`` while the tests run, and removed afterwards."""
    solution_file = solution_file or module_name + ".py"
    syntax = check_syntax(code, solution_file)
    if syntax is not None:
        return syntax_report(exercise_id, syntax, public_only=True, graded=False)
    cases = parse_cases(tests_source, hidden=False, filename=test_file)
    tests_module = _module("public_test", tests_source, test_file)

    previous = sys.modules.get(module_name)
    start = time.perf_counter()
    tests = []
    crashed = None
    memory = False
    try:
        try:
            submission = types.ModuleType(module_name)
            submission.__file__ = solution_file
            sys.modules[module_name] = submission
            exec(compile(code, solution_file, "exec"), submission.__dict__)
        except BaseException as exc:  # noqa: BLE001 (the learner's code may raise anything)
            if isinstance(exc, KeyboardInterrupt):
                raise
            outcome = _outcome(exc)
            memory = "memory" in outcome
            raised = outcome.get("raised", {"type": "MemoryError", "message": ""})
            crashed = f"importing your code raised {raised['type']}: {raised['message']}"
            tests = [test_entry(c.name, c.description, "error",
                                crashed + ("\n" + raised.get("traceback", "").rstrip() if i == 0 else ""),
                                None, False) for i, c in enumerate(cases)]
        else:
            for c in cases:
                fn = getattr(tests_module, c.name)
                t0 = time.perf_counter()
                try:
                    outcome = {"value": plain(fn(submission))}
                except NotPlainData as exc:
                    outcome = {"invalid": str(exc)}
                except KeyboardInterrupt:
                    raise
                except BaseException as exc:  # noqa: BLE001
                    outcome = _outcome(exc)
                ms = (time.perf_counter() - t0) * 1000.0
                memory = memory or "memory" in outcome
                expected = _inline_expected(fn)
                if expected is None:
                    status, message = "error", "this test has no inline expected value; it is graded by the judge only"
                else:
                    status, message = compare_outcomes(outcome, expected, c.tolerance)
                tests.append(test_entry(c.name, c.description, status, message, ms, False))
    finally:
        if previous is None:
            sys.modules.pop(module_name, None)
        else:
            sys.modules[module_name] = previous
    verdict, message = decide(tests, memory=memory, crashed=crashed)
    return make_report(exercise_id, verdict, message, tests, public_only=True, graded=False,
                       duration_ms=(time.perf_counter() - start) * 1000.0, backend=_backend())


def _inline_expected(fn):
    if hasattr(fn, "raises"):
        kind, message = fn.raises
        return {"raised": {"type": kind, "message": message}}
    if hasattr(fn, "expected"):
        return {"value": plain(fn.expected)}
    return None


def _backend():
    kael = sys.modules.get("kael")
    return kael.backend_name() if kael is not None else None
