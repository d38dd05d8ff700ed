"""Public tests run in this very process: the browser's path (Pyodide), for the learner's own
feedback. Nothing here is trusted: the submission runs beside the checks and could forge them,
so these reports carry ``"graded": false``; grading that counts goes through ``grade.grade``.

Expected values come from the public test file itself (``test_x.expected = ...`` or
``test_x.raises = ["RuntimeError", "message"]``), so the reference solution is not needed.

Feedback that names the mistake, as the judge's report has it: ``feedback`` is
``mistakes.public_feedback(exercise)`` (the web build exports it as ``harness/feedback/<id>.json``
beside this file, where it is found by ``exercise_id`` when not given): the known mistakes whose
public outcomes the run matches, and for the engine exercises the trace diff of the first failing
case against the reference's stored trace. Public data only: the browser has nothing else.
"""

from __future__ import annotations

import json
import re
import sys
import time
import types
from pathlib import Path

from .catalog import parse_cases
from .child import NotPlainData, _outcome, plain
from .compare import compare_outcomes
from .mistakes import match_public
from .report import ACCEPTED, check_syntax, decide, make_report, syntax_report, test_entry

__all__ = ["run_public"]


def _module(name, source, filename):
    module = types.ModuleType(name)
    module.__file__ = filename
    exec(compile(source, filename, "exec"), module.__dict__)
    return module


def run_public(code: str, tests_source: str, module_name: str, *, exercise_id: str = "",
               solution_file: str | None = None, test_file: str = "public_test.py",
               feedback: dict | None = None) -> dict:
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
    frames, trace = {}, None
    try:
        try:
            submission = types.ModuleType(module_name)
            submission.__file__ = solution_file
            sys.modules[module_name] = submission
            exec(compile(code, solution_file, "exec"), submission.__dict__)
        except BaseException as exc:  # noqa: BLE001 (the learner's code may raise anything)
            if isinstance(exc, KeyboardInterrupt):
                raise
            tests, crashed, memory = _import_failed(exc, cases)
        else:
            crashed = None
            tests, memory = _run_cases(cases, tests_module, submission, frames)
            if feedback is None:
                feedback = _exported_feedback(exercise_id)
            trace = _trace(feedback, tests, tests_module, submission)
    finally:
        if previous is None:
            sys.modules.pop(module_name, None)
        else:
            sys.modules[module_name] = previous
    verdict, message = decide(tests, memory=memory, crashed=crashed)
    known = []
    if verdict != ACCEPTED and crashed is None and feedback:
        known = match_public(feedback.get("mistakes", []), tests, frames, {c.name: c.tolerance for c in cases})
    return make_report(exercise_id, verdict, message, tests, public_only=True, graded=False,
                       duration_ms=(time.perf_counter() - start) * 1000.0, backend=_backend(),
                       mistakes=known, trace_diff=trace)


def _import_failed(exc, cases):
    outcome = _outcome(exc)
    raised = outcome.get("raised", {"type": "MemoryError", "message": ""})
    crashed = f"importing your code raised {raised['type']}: {raised['message']}"
    tests = [test_entry(c.name, c.description, "error",
                        crashed + ("\n" + raised.get("traceback", "").rstrip() if i == 0 else ""),
                        None, False) for i, c in enumerate(cases)]
    return tests, crashed, "memory" in outcome


def _run_cases(cases, tests_module, submission, frames):
    """Each public case, compared with its inline expected value; ``frames`` gets the outcomes."""
    tests = []
    memory = False
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
        frames[c.name] = outcome
        memory = memory or "memory" in outcome
        expected = _inline_expected(fn)
        if expected is None:
            status, message = "error", "this test has no inline expected value; it is graded by the judge only"
        else:
            status, message = compare_outcomes(outcome, expected, c.tolerance)
        tests.append(test_entry(c.name, c.description, status, message, ms, False))
    return tests, memory


_ID = re.compile(r"[a-z0-9][a-z0-9-]{0,63}")


def _exported_feedback(exercise_id):
    """``harness/feedback/<id>.json`` as the web build exports it, or ``None``."""
    path = Path(__file__).resolve().parent / "feedback" / f"{exercise_id}.json"
    if not _ID.fullmatch(exercise_id or "") or not path.is_file():
        return None
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except ValueError:
        return None


def _trace(feedback, tests, tests_module, submission):
    """The trace diff of the first failing public case against the reference's stored trace."""
    from . import tracechild, tracediff

    traces = (feedback or {}).get("traces")
    mode = (feedback or {}).get("mode")
    failing = next((t["name"] for t in tests if t["status"] != "passed"), None)
    if not traces or mode not in tracechild.MODES or failing not in traces:
        return None
    try:
        import kael

        steps, error = tracechild.record(kael, tests_module, submission, failing, mode)
    except KeyboardInterrupt:
        raise
    except Exception:  # noqa: BLE001 (a trace is an aid: it must never break the run)
        return None
    return tracediff.diff(failing, mode, {"steps": steps, "error": error}, traces[failing])


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
