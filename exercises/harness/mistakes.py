"""Known mistakes: when a failing submission behaves exactly like one of an exercise's
hand-written mutants, the report names that mistake in words a learner understands.

Two files per exercise, both in ``.meta/`` (never sent to a child, never in ``public_dict``):

* ``mistakes.json`` (written by the exercise's author): ``{mutant name: {"en": text, "zh":
  text}}``, a short explanation of the mistake each mutant makes;
* ``mutant_outcomes.json`` (generated: ``judge.py mistakes --update``): each mutant's
  **signature**, ``{"key", "public_key", "failing", "public"}``: the cases it does not pass and
  its outcomes on the public ones among them. ``key`` hashes the reference, both test files,
  the mutant's diff and the exercise's rules (``public_key`` the same without the hidden tests);
  a stale or missing signature is recomputed when needed (once per process), so a changed test
  never makes a message wrong, only slower the first time.

The browser's own run (``inprocess.py``) has only the public cases: ``public_feedback()`` gives
the part of each signature about them (and, for the engine exercises, the reference's traces of
the public cases, ``.meta/public_traces.json``), which the web build exports with the harness
(``harness/feedback/<id>.json``). Nothing about a hidden case is in it: not its name, not its
outcome.

A submission matches a mutant when the set of cases it did not pass equals the mutant's (over
the cases that ran) and, on every public case in that set, its outcome equals the mutant's
within the case's tolerance. The message says which mistake it looks like; it names no test
and shows no value, so it reveals nothing about the hidden tests beyond the report itself.
"""

from __future__ import annotations

import hashlib
import json
import threading

from .compare import PASSED, compare_outcomes
from .oracle import first_difference

__all__ = ["messages", "signature_key", "public_key", "signatures", "compute_signature", "match",
           "match_public", "update", "public_feedback", "LANGS"]

LANGS = ("en", "zh")
MESSAGES_FILE = "mistakes.json"
OUTCOMES_FILE = "mutant_outcomes.json"

_memo: dict = {}
_memo_lock = threading.Lock()


def messages(exercise) -> dict:
    """``{mutant name: {"en", "zh"}}`` for the mutants that have a message (and still exist)."""
    path = exercise.path / ".meta" / MESSAGES_FILE
    if not path.is_file():
        return {}
    data = json.loads(path.read_text(encoding="utf-8"))
    folder = exercise.path / ".meta" / "mutants"
    return {name: text for name, text in data.items() if (folder / f"{name}.diff").is_file()}


def signature_key(exercise, name: str) -> str:
    digest = hashlib.sha256()
    diff = (exercise.path / ".meta" / "mutants" / f"{name}.diff").read_text(encoding="utf-8")
    for part in (exercise.reference_source(), exercise.public_tests_source(),
                 exercise.hidden_tests_source(), diff, _rules(exercise)):
        digest.update(part.encode())
        digest.update(b"\0")
    return digest.hexdigest()


def _rules(exercise) -> str:
    """The rules the child enforces (``rules.py``): they change what a mutant's run gives."""
    return json.dumps(exercise.config.get("rules"), sort_keys=True)


def public_key(exercise, name: str) -> str:
    """What the public part of a signature depends on: the reference, the public tests, the
    mutant, the rules (not the hidden tests, which change more often)."""
    digest = hashlib.sha256()
    diff = (exercise.path / ".meta" / "mutants" / f"{name}.diff").read_text(encoding="utf-8")
    for part in (exercise.reference_source(), exercise.public_tests_source(), diff, _rules(exercise)):
        digest.update(part.encode())
        digest.update(b"\0")
    return digest.hexdigest()


def _stored(exercise) -> dict:
    path = exercise.path / ".meta" / OUTCOMES_FILE
    if not path.is_file():
        return {}
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except ValueError:
        return {}


def _statuses(cases, frames, expected) -> dict:
    """``{case name: status}`` of one run, compared as ``grade`` compares them."""
    from .childrun import expected_for  # here, not at the top: the browser imports this module without running children

    out = {}
    for c in cases:
        frame = frames.get(c.name)
        status, _ = compare_outcomes(frame, expected_for(expected[c.name], c), c.tolerance,
                                     min_accuracy=c.min_accuracy)
        out[c.name] = status
    return out


def compute_signature(exercise, name: str, *, runner=None, env=None) -> dict:
    """Run mutant ``name`` on every case (through ``runner``) and return its signature."""
    from .childrun import child_env, run_submission  # not imported in the browser (no subprocesses)
    from .runner import LocalRunner

    runner = runner or LocalRunner()
    env = child_env(env)
    cases = exercise.cases()
    source = exercise.mutants()[name]
    run, expected = run_submission(exercise, source, cases, runner, exercise.limits(), env)
    statuses = _statuses(cases, run.cases, expected)
    failing = [c.name for c in cases if statuses[c.name] != PASSED]
    public = {c.name: _outcome(run.cases.get(c.name)) for c in cases
              if not c.hidden and c.name in failing}
    return {"key": signature_key(exercise, name), "public_key": public_key(exercise, name),
            "failing": failing, "public": public, "first": first_differences(failing, run.cases, expected)}


def first_differences(failing, frames, expected) -> dict:
    """``{case name: "case i: call"}``: where each failing declared-domain case first differs
    from the reference (``oracle.first_difference``). Many mistakes fail the one domain test of
    a function; where they first go wrong tells them apart."""
    out = {}
    for name in failing:
        where = first_difference(frames.get(name), expected.get(name)) if expected.get(name) else None
        if where is not None:
            out[name] = where
    return out


def _outcome(frame):
    """What a case gave, as compared: no traceback (it names this checkout's paths and kael's
    line numbers, which change without changing the mistake)."""
    if frame is None:
        return None
    out = {k: frame[k] for k in ("value", "raised", "memory", "invalid") if k in frame}
    if type(out.get("raised")) is dict:
        out["raised"] = {k: v for k, v in out["raised"].items() if k != "traceback"}
    return out


def signatures(exercise, *, runner=None, env=None) -> dict:
    """``{mutant name: signature}`` for every mutant with a message: from
    ``mutant_outcomes.json`` when current, else computed now (and remembered in this process)."""
    stored = _stored(exercise).get("mutants", {})
    out = {}
    for name in messages(exercise):
        key = signature_key(exercise, name)
        sig = stored.get(name)
        if sig is not None and sig.get("key") == key:
            out[name] = sig
            continue
        with _memo_lock:
            lock = _memo.setdefault(("lock", key), threading.Lock())
        with lock:
            if key not in _memo:
                _memo[key] = compute_signature(exercise, name, runner=runner, env=env)
        out[name] = _memo[key]
    return out


def match(exercise, tests: list, frames: dict, *, expected=None, runner=None, env=None) -> list:
    """The known mistakes a graded run looks like: ``[{"mutant", "message": {"en", "zh"}}]``.

    ``tests`` are the report's test entries (name, status); ``frames`` the submission's
    outcomes by case name; ``expected`` the reference's (then a failing domain case must also
    first differ where the mutant's does). Cases that did not run in this grading (public-only)
    are left out of the comparison. Never raises: a mutant whose signature cannot be computed is
    skipped."""
    failing = {t["name"] for t in tests if t["status"] != PASSED}
    texts = messages(exercise)
    if not failing or not texts:
        return []
    try:
        sigs = signatures(exercise, runner=runner, env=env)
    except Exception:  # noqa: BLE001 (a broken mutant must never break a grading)
        return []
    tolerance = {c.name: c.tolerance for c in exercise.cases()}
    known = [{"mutant": name, "message": texts[name], "failing": sig["failing"], "public": sig.get("public", {}),
              "first": sig.get("first") or {}} for name, sig in sigs.items()]
    first = first_differences(sorted(failing), frames, expected) if expected else None
    return _matching(known, tests, frames, tolerance, first)


def match_public(known: list, tests: list, frames: dict, tolerance: dict) -> list:
    """``match`` for the browser's public-only run, from ``public_feedback()["mistakes"]``."""
    return _matching(known, tests, frames, tolerance)


def _matching(known, tests, frames, tolerance, first=None) -> list:
    failing = {t["name"] for t in tests if t["status"] != PASSED}
    if not failing:
        return []
    ran = {t["name"] for t in tests}
    found = []
    for k in known:
        if set(k["failing"]) & ran != failing:
            continue
        if first is not None and any(first.get(case) != where for case, where in k.get("first", {}).items()
                                     if case in failing):
            continue  # fails the same domain test, but first goes wrong elsewhere: another mistake
        if all(_same(frames.get(case), outcome, tolerance.get(case))
               for case, outcome in k["public"].items() if case in ran):
            found.append({"mutant": k["mutant"], "message": {lang: k["message"][lang] for lang in LANGS}})
    return found


def _same(frame, outcome, tolerance) -> bool:
    if outcome is None or frame is None:
        return outcome is None and frame is None
    if "value" not in outcome and "raised" not in outcome:
        return set(outcome) == set(_outcome(frame))
    status, _ = compare_outcomes(frame, outcome, tolerance)
    return status == PASSED


def update(exercise, *, runner=None, env=None, force: bool = False) -> dict:
    """Write ``mutant_outcomes.json`` with the signature of every mutant with a message:
    recomputed when stale or missing (or every one, with ``force``: after a change of kael that
    the key does not cover); and, for the engine exercises, ``public_traces.json``. Returns
    ``{name: signature}``."""
    stored = {} if force else _stored(exercise).get("mutants", {})
    sigs = {}
    for name in messages(exercise):
        sig = stored.get(name)
        current = sig is not None and sig.get("key") == signature_key(exercise, name)
        sigs[name] = sig if current else compute_signature(exercise, name, runner=runner, env=env)
        sigs[name]["public_key"] = public_key(exercise, name)
    path = exercise.path / ".meta" / OUTCOMES_FILE
    path.write_text(json.dumps({"mutants": sigs}, ensure_ascii=False, indent=1, sort_keys=True) + "\n",
                    encoding="utf-8")
    from . import tracediff

    traces = tracediff.reference_traces(exercise, runner=runner, env=env, force=force)
    if traces is not None:
        (exercise.path / ".meta" / tracediff.TRACES_FILE).write_text(
            json.dumps(traces, ensure_ascii=False, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return sigs


def public_feedback(exercise) -> dict:
    """What the browser's public-only run needs to name a known mistake and draw a trace diff,
    from the stored files only (never computed here; a stale entry is left out):
    ``{"mistakes": [{"mutant", "message", "failing", "public"}], "mode", "traces"}``, where
    ``failing`` are the public cases the mutant does not pass (a mutant that passes every public
    case is left out: it cannot match a public run) and ``public`` its outcomes on them;
    ``mode``/``traces`` (engine exercises): the reference's trace of each public case."""
    from . import tracediff

    public = {c.name for c in exercise.public_cases()}
    stored = _stored(exercise).get("mutants", {})
    known = []
    for name, text in messages(exercise).items():
        sig = stored.get(name)
        if sig is None or sig.get("public_key") != public_key(exercise, name):
            continue
        failing = [case for case in sig["failing"] if case in public]
        if failing:
            known.append({"mutant": name, "message": {lang: text[lang] for lang in LANGS},
                          "failing": failing, "public": {k: v for k, v in sig["public"].items() if k in public}})
    out = {"exercise": exercise.id, "mistakes": known}
    traces = tracediff.stored_reference_traces(exercise)
    if traces is not None:
        out["mode"] = tracediff.TRACED[exercise.id]
        out["traces"] = traces
    return out
