"""``grade(exercise, code)``: run a submission in a child process and judge it in this one.

1. Write a task directory (child script, submission, test files, ``job.json``: never expected
   values, never the reference) and let the runner start the child on it. The child compiles
   the submission first (untrusted code is never compiled or parsed in this process): a syntax
   error comes back as a frame with its line and column, and nothing runs.
2. Get the expected outcomes by running the same cases against the reference solution in a
   separate child (cached in memory per exercise, tests, reference and environment).
3. Read the child's frames (only those carrying this run's nonce), compare each case's outcome
   with the reference's here, and decide the verdict from the comparisons and from what happened
   to the process (deadline, signal, exit status, memory).
"""

from __future__ import annotations

import signal

from . import catalog, mistakes, tracediff
from .childrun import (
    HarnessError,
    child_env,
    clear_cache,
    expected_for,
    reference_outcomes,
    run_child,
    run_submission,
)
from .compare import ERROR, compare_outcomes
from .report import (
    ACCEPTED,
    make_report,
    decide,
    time_limit_message,
    syntax_report,
    test_entry,
)
from .runner import CPU, LocalRunner

__all__ = ["grade", "HarnessError", "reference_outcomes", "run_child", "clear_cache"]


# -- grading ---------------------------------------------------------------------------------------


def grade(exercise, code: str, runner=None, public_only: bool = False, *, limits=None,
          reveal_hidden: bool = True, env=None, root=None, known_mistakes: bool = True,
          trace: bool = True) -> dict:
    """Grade ``code`` for ``exercise`` (an ``Exercise``, or its id, folder name or number).

    ``runner``: how to start the child (default ``LocalRunner()``); the reference runs through
    the same runner. ``limits``: override the exercise's limits for the submission's run.
    ``reveal_hidden=False`` keeps the values of hidden tests out of their messages. ``env``:
    environment for the child (default: pass ``KAEL_BACKEND`` through). ``known_mistakes``:
    name the hand-written mutants the outcomes match (``mistakes.py``) when not Accepted.
    ``trace``: for the engine exercises, the first step where the learner's run of the first
    failing public case diverges from the reference's (``tracediff.py``).
    Returns the report dict (see ``report.py``); raises ``HarnessError`` when the harness or
    the reference fails, ``catalog.UnknownExercise`` for an unknown id."""
    exercise = catalog.find(exercise, root)
    runner = runner or LocalRunner()
    env = child_env(env)
    cases = exercise.cases(public_only)
    limits = limits or exercise.limits()

    run, expected = run_submission(exercise, code, cases, runner, limits, env)

    if run.syntax_error is not None:
        return syntax_report(exercise.id, run.syntax_error, public_only=public_only)
    if run.ready is None and not run.timed_out and not run.out_of_memory:
        raise HarnessError(
            f"the judge's child process did not start (exit {run.result.exit_code}, "
            f"signal {run.result.signal}):\n{run.output[-3000:]}"
        )
    timed_out = run.timed_out
    tests = []
    unfinished_reported = False
    crashed_in = None
    for c in cases:
        frame = run.cases.get(c.name)
        if frame is None:
            if run.load_error is None and not timed_out and crashed_in is None and _crashed(run):
                crashed_in = c.name  # the first case without a result is the one that was running
                status, message = ERROR, f"the program crashed while this test was running ({_how(run.result)})"
            elif run.load_error is not None:
                status, message = ERROR, "not run: importing your code failed"
                if not tests:
                    raised = run.load_error.get("raised")
                    if raised:
                        message = f"importing your code raised {raised['type']}: {raised['message']}\n{raised.get('traceback', '').rstrip()}"
                    elif run.load_error.get("memory"):
                        message = "importing your code ran out of memory (MemoryError)"
            elif timed_out and not unfinished_reported:
                status, message = ERROR, "did not finish within the time limit"
                unfinished_reported = True
            else:
                status, message = compare_outcomes(None, expected_for(expected[c.name], c), c.tolerance)
            duration = None
        else:
            status, message = compare_outcomes(frame, expected_for(expected[c.name], c), c.tolerance,
                                               reveal=reveal_hidden or not c.hidden,
                                               min_accuracy=c.min_accuracy)
            duration = frame.get("duration_ms") if type(frame.get("duration_ms")) in (int, float) else None
        tests.append(test_entry(c.name, c.description, status, message, duration, c.hidden))

    crashed = None if timed_out else run.crash_message()
    if crashed and crashed_in is not None:
        crashed += f" while {crashed_in} was running"
    time_limit = None
    if timed_out:
        r = run.result
        limit = r.limit or (CPU if r.signal == getattr(signal, "SIGXCPU", None) else None)
        time_limit = time_limit_message(limit, r.cpu_s, r.duration_s, limits.cpu_seconds)
    verdict, message = decide(tests, time_limit=time_limit, memory=run.out_of_memory, crashed=crashed)
    backend = run.ready.get("backend") if run.ready else None
    report = make_report(
        exercise.id, verdict, message, tests,
        public_only=public_only, graded=True, output=run.output,
        backend=backend if type(backend) is str else None,
        duration_ms=run.result.duration_s * 1000.0,
    )
    if verdict != ACCEPTED and known_mistakes:
        # Without reveal_hidden, only public outcomes choose the message (none of it can then
        # depend on a hidden test); judge.py, with the hidden tests on disk, matches on all.
        shown = tests if reveal_hidden else [t for t in tests if not t["hidden"]]
        report["mistakes"] = mistakes.match(exercise, shown, run.cases, expected=expected, runner=runner, env=env)
    if verdict != ACCEPTED and trace:
        report["trace_diff"] = tracediff.trace_diff(exercise, code, tests, runner=runner, env=env, limits=limits)
    return report


def _crashed(run) -> bool:
    """The child died in the middle of the cases (a signal or an exit), not at a deadline, not
    for memory, not after its last frame."""
    return run.loaded and not run.done and not run.out_of_memory and not run.result.output_truncated


def _how(result) -> str:
    if result.signal:
        try:
            return f"signal {result.signal}, {signal.Signals(result.signal).name}"
        except ValueError:
            return f"signal {result.signal}"
    return f"exit status {result.exit_code}"
