"""Running the child: the task directory, the child's frames, the reference's outcomes.

``run_child`` writes a task directory (child script, submission, test files, ``job.json``:
never expected values, never the reference), lets the runner start the child on it and parses
what it sent (``ChildRun``: only frames carrying this run's nonce). ``reference_outcomes`` runs
the same cases against the reference solution (cached in memory per exercise, tests, reference
and environment). ``grade.py`` judges with these; ``mistakes.py`` and ``tracediff.py`` use them
to rerun mutants and traces. Nothing here decides a verdict.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import shutil
import signal
import tempfile
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path

from . import frames, rules
from .child import MARK
from .compare import compare_outcomes
from .runner import LocalRunner

__all__ = ["HarnessError", "ChildRun", "child_env", "run_child", "clear_cache",
           "reference_outcomes", "expected_for", "run_submission"]

CHILD = Path(__file__).with_name("child.py")
RULES = Path(__file__).with_name("rules.py")
DOMAIN = Path(__file__).with_name("domain.py")  # declared domains: hidden tests import judge_domain
MAX_OUTPUT_SHOWN = 8000


class HarnessError(RuntimeError):
    """The harness itself failed (the reference did not run cleanly, the child could not
    start): not the submission's fault, so not a verdict."""


def child_env(env):
    if env is not None:
        return dict(env)
    backend = os.environ.get("KAEL_BACKEND")
    return {"KAEL_BACKEND": backend} if backend else {}


class ChildRun:
    """What one run of the child sent and how it ended. Each frame is checked against the
    frame schema (``frames.py``) before anything reads it; the first one outside it ends the
    reading, and the run is the submission's Runtime Error (``crash_message``)."""

    def __init__(self, result, nonce, case_names=()):
        self.result = result
        self.ready = None
        self.loaded = False
        self.load_error = None
        self.syntax_error = None
        self.cases = {}
        self.given = {}  # the reference's run: {case name: {"input", "answer"}} (given frames)
        self.done = False
        self.protocol_errors = []
        prefix = (MARK + nonce + " ").encode()
        other = []
        budget = frames.Budget()
        for line in result.stdout.split(b"\n"):
            if not line.startswith(prefix):
                if line.strip():
                    other.append(line)
                continue
            if self.protocol_errors:
                continue
            try:
                self._take(frames.parse(line[len(prefix):], case_names, budget))
            except frames.BadFrame as exc:
                self.protocol_errors.append(str(exc))
        text = result.stderr.decode("utf-8", "replace")
        if other:
            text += b"\n".join(other).decode("utf-8", "replace")
        self.output = text[-MAX_OUTPUT_SHOWN:] if len(text) > MAX_OUTPUT_SHOWN else text

    def _take(self, frame):
        event = frame["event"]
        if self.done:
            self.protocol_errors.append(f"a {event!r} frame after the end")
        elif event == "ready" and self.ready is None:
            self.ready = frame
        elif event == "syntax_error" and self.ready is not None and not self.loaded:
            self.syntax_error = {k: frame[k] for k in ("message", "line", "column", "text")}
            self.done = True
        elif event == "loaded" and self.ready is not None and not self.loaded:
            self.loaded = True
        elif event == "load_error" and self.ready is not None and not self.loaded:
            self.load_error = frame
        elif event == "given" and self.loaded and frame["name"] not in self.given | self.cases:
            self.given[frame["name"]] = frame["value"]
        elif event == "case" and self.loaded:
            name = frame["name"]
            if name in self.cases:
                self.protocol_errors.append(f"case {name} reported twice")
            else:
                self.cases[name] = frame
        elif event == "done" and self.loaded:
            self.done = True
        else:
            self.protocol_errors.append(f"an unexpected {event!r} frame")

    @property
    def timed_out(self) -> bool:
        r = self.result
        return r.timed_out or r.signal == getattr(signal, "SIGXCPU", -1)

    @property
    def out_of_memory(self) -> bool:
        r = self.result
        if r.memory_killed:
            return True
        if self.load_error and self.load_error.get("memory"):
            return True
        if any(c.get("memory") for c in self.cases.values()):
            return True
        if self.done or self.timed_out or r.output_truncated:
            return False
        if r.signal == signal.SIGKILL:
            return True  # killed from outside without a deadline: the memory killer
        return "MemoryError" in r.stderr.decode("utf-8", "replace")[-2000:]

    def crash_message(self):
        """Why the run is a runtime error regardless of the tests, or None."""
        r = self.result
        if r.output_truncated:
            return "the program wrote too much output"
        if self.protocol_errors:
            return "the harness received unexpected data from the program (" + self.protocol_errors[0] + ")"
        if self.load_error is not None:
            raised = self.load_error.get("raised", {})
            return f"importing your code raised {raised.get('type')}: {raised.get('message')}"
        if not self.done:
            how = f"signal {r.signal}" if r.signal else f"exit status {r.exit_code}"
            return f"the program stopped before all tests ran ({how})"
        if r.exit_code != 0:
            how = f"signal {r.signal}" if r.signal else f"exit status {r.exit_code}"
            return f"the program ended abnormally after the tests ({how})"
        return None


def run_child(exercise, code, cases, runner, limits, env, given=None):
    """Write the task directory, run the child on it, parse what it sent. ``given``: ``{case
    name: {"data": function}}`` (the reference's run makes the data) or ``{case name: {"input":
    data}}`` (a submission's run gets the input only)."""
    given = given or {}
    make_dir = getattr(runner, "make_task_dir", None)
    task_dir = Path(make_dir()) if make_dir else Path(tempfile.mkdtemp(prefix="kael-judge-"))
    try:
        shutil.copyfile(CHILD, task_dir / "child.py")
        exercise_rules = exercise.config.get("rules") or {}
        if exercise_rules:
            shutil.copyfile(RULES, task_dir / "judge_rules.py")
        (task_dir / exercise.solution_file).write_text(code, encoding="utf-8")
        groups = []
        public = [c.name for c in cases if not c.hidden]
        hidden = [c.name for c in cases if c.hidden]
        if hidden:
            shutil.copyfile(DOMAIN, task_dir / "judge_domain.py")
        if public or hidden:
            # Written whenever tests run: hidden tests may import helpers from public_test.
            (task_dir / "public_test.py").write_text(exercise.public_tests_source(), encoding="utf-8")
        if public:
            groups.append({"file": "public_test.py", "module": "public_test", "names": public})
        if hidden:
            (task_dir / "hidden_test.py").write_text(exercise.hidden_tests_source(), encoding="utf-8")
            groups.append({"file": "hidden_test.py", "module": "hidden_test", "names": hidden,
                           "given": {n: given[n] for n in hidden if n in given}})
        job = {"submission": exercise.solution_file, "module": exercise.module_name, "tests": groups,
               "rules": exercise_rules}
        (task_dir / "job.json").write_text(json.dumps(job), encoding="utf-8")
        # A runner that starts the child as another user says who may read the folder
        # (the sandbox: its slot only); the local runner's child is this user.
        seal = getattr(runner, "seal_task_dir", None)
        if seal is not None:
            seal(task_dir)
        nonce = secrets.token_hex(16)
        try:
            result = runner.run(task_dir, ["child.py", "job.json"], limits, stdin=(nonce + "\n").encode(), env=env)
        except Exception as exc:  # the runner itself failed (kael not importable, no sandbox, ...)
            raise HarnessError(f"the runner could not run the child: {exc}") from exc
        return ChildRun(result, nonce, [c.name for c in cases])
    finally:
        shutil.rmtree(task_dir, ignore_errors=True)


# -- expected outcomes from the reference -------------------------------------------------------

_cache: dict = {}
_cache_lock = threading.Lock()
_key_locks: dict = {}


def clear_cache():
    with _cache_lock:
        _cache.clear()


def reference_outcomes(exercise, runner=None, env=None) -> dict:
    """``{case name: outcome}`` for every case (public and hidden), from the reference solution."""
    runner = runner or LocalRunner()
    env = child_env(env)
    reference = exercise.reference_source()
    digest = hashlib.sha256()
    for part in (reference, exercise.public_tests_source(), exercise.hidden_tests_source(),
                 json.dumps(sorted(env.items())), json.dumps(exercise.config.get("rules"))):
        digest.update(part.encode())
        digest.update(b"\0")
    key = (exercise.id, digest.hexdigest())
    with _cache_lock:
        if key in _cache:
            return _cache[key]
        lock = _key_locks.setdefault(key, threading.Lock())
    with lock:
        with _cache_lock:
            if key in _cache:
                return _cache[key]
        cases = exercise.cases()
        base = exercise.limits()
        # More time and memory than a submission gets (a slow machine must not fail the
        # reference), the same output cap (a case whose data is too big fails here, for the author).
        limits = replace(base, time_s=base.time_s * 3, cpu_s=base.cpu_seconds * 3, memory_mb=base.memory_mb * 2)
        given = {c.name: {"data": c.given} for c in cases if c.given}
        run = run_child(exercise, reference, cases, runner, limits, env, given)
        problem = run.crash_message() or (run.timed_out and "time limit") or (
            run.out_of_memory and "memory limit")
        if problem or run.ready is None:
            raise HarnessError(
                f"the reference solution of {exercise.id} did not run cleanly: {problem or 'no ready frame'}\n"
                f"{run.output[-3000:]}"
            )
        outcomes = {}
        for c in cases:
            frame = run.cases.get(c.name)
            if frame is None or "value" not in frame and "raised" not in frame:
                raise HarnessError(f"the reference solution of {exercise.id} gave no usable result for {c.name}: {frame}")
            outcomes[c.name] = {k: frame[k] for k in ("value", "raised") if k in frame}
            if exercise.config.get("rules") and rules.mentions_refusal(json.dumps(outcomes[c.name])):
                raise HarnessError(f"{exercise.id}: {c.name} uses what the exercise's rules refuse "
                                   f"(.meta/config.json): {json.dumps(outcomes[c.name])[:600]}")
            if c.given:
                outcomes[c.name]["given"] = _checked_given(exercise, c, run.given.get(c.name), frame)
        with _cache_lock:
            _cache[key] = outcomes
        return outcomes


def _checked_given(exercise, case, data, frame):
    """The reference's data for a case given data: ``{"input", "answer"}``, and the reference's
    own outcome must pass against that answer."""
    if type(data) is not dict or set(data) != {"input", "answer"}:
        raise HarnessError(f"{exercise.id}: {case.given}() must return {{'input': ..., 'answer': ...}}")
    status, message = compare_outcomes(frame, {"value": data["answer"]}, case.tolerance,
                                       min_accuracy=case.min_accuracy)
    if status != "passed":
        raise HarnessError(f"the reference solution of {exercise.id} fails {case.name} against its "
                           f"own given answer: {message}")
    return data


def expected_for(outcome, case):
    """What a case's outcome is compared with: the reference's outcome, or, for a case given
    data, the answer made with that data."""
    return {"value": outcome["given"]["answer"]} if case.given else outcome


def run_submission(exercise, code, cases, runner, limits, env):
    """``(run, expected)``: the submission's run and the reference's outcomes. They run at the
    same time unless a case is given data made in the reference's run (then the reference first:
    its inputs go to the submission, its answers stay here)."""
    if any(c.given for c in cases):
        expected = reference_outcomes(exercise, runner, env)
        given = {c.name: {"input": expected[c.name]["given"]["input"]} for c in cases if c.given}
        return run_child(exercise, code, cases, runner, limits, env, given), expected
    with ThreadPoolExecutor(max_workers=1) as pool:
        expected_future = pool.submit(reference_outcomes, exercise, runner, env)
        run = run_child(exercise, code, cases, runner, limits, env)
        return run, expected_future.result()
