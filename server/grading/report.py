"""Grade a submission and build the report a learner may see.

The child that runs hidden tests can read them (they are in its task directory and in its
memory), so nothing it can influence may reach the learner in free text: a public test's
message ("returned ..."), a traceback, the verdict's message, printed output, even durations
(a timing channel). Hence two runs through the harness:

* the **full** run (public and hidden tests) decides the verdict and gives each test's status;
* a **public-only** run (its task directory holds no hidden test) gives the public tests'
  messages, durations and the printed output. It is skipped when the full run is Accepted.

The public report is then built from an allow-list of fields, with fixed wording where the
full run's text could carry hidden data.
"""

from __future__ import annotations

import json
import math

from harness.report import CPU_USED, WALL_STOPPED
from harness.vocabulary import ACCEPTED, MEMORY_LIMIT, RUNTIME_ERROR, SYNTAX_ERROR, TIME_LIMIT, WRONG_ANSWER
from server.grading.harness import grade

MAX_OUTPUT = 8000
FIXED_MESSAGES = {
    TIME_LIMIT: "the program did not finish within the time limit",
    MEMORY_LIMIT: "the program ran out of memory",
}
# Which time limit stopped the full run, in fixed words: the CPU time it used (or the seconds
# the clock ran) could carry what it read in the hidden tests; the kind is one bit (README).
TIME_LIMIT_MESSAGES = (
    (CPU_USED, f"{CPU_USED} CPU time without finishing"),
    (WALL_STOPPED, f"{WALL_STOPPED} with CPU time to spare: it was waiting (a sleep, input, a "
                   "lock), not computing"),
)


# When a verdict may be published: the grading time rounded up to one of these (seconds), so
# that the time a submission takes with its hidden tests tells at most log2(7) ~ 2.8 bits.
REVEAL_AT = (0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0)


# What one stored report may hold (the child's frames are bounded by harness/frames.py; this
# bounds what is stored and answered whatever a report held, older rows included).
MAX_REPORT_BYTES = 256 * 1024
MAX_MESSAGE = 4000
MAX_DURATION_MS = 24 * 3600 * 1000.0
MAX_NESTING = 16  # a trace diff holds tables of rows of values: a few levels


def reveal_delay(elapsed: float) -> float:
    """How long to hold a verdict that took ``elapsed`` seconds to grade."""
    bucket = next((b for b in REVEAL_AT if elapsed <= b), None)
    return 0.0 if bucket is None else bucket - elapsed


def grade_submission(exercise, code: str, runner, *, env=None, root=None) -> dict:
    """The public report for ``code`` (``HarnessError``/``UnknownExercise`` propagate)."""
    full = grade(exercise, code, runner=runner, env=env, root=root, reveal_hidden=False,
                 known_mistakes=False, trace=False)
    public = None
    if full["verdict"] not in (ACCEPTED, SYNTAX_ERROR):
        public = grade(exercise, code, runner=runner, env=env, root=root, public_only=True)
    return public_report(full, public)


def public_report(full: dict, public: dict | None) -> dict:
    """What the learner sees. From the full run (the one that had the hidden tests) only the
    verdict and, for hidden tests, the count passed and the first one that did not pass: never a
    status per hidden test, nor a public test's status, message, duration or output from that
    run (the submission could make any of them depend on the hidden file). Everything else comes
    from the public-only run. See the README's threat model for what this leaves per submission."""
    verdict = full["verdict"]
    hidden = [t for t in full["tests"] if t["hidden"]]
    if public is not None:
        source = public["tests"]
    else:  # no public-only run: Accepted (all passed) or a syntax error (no test ran)
        source = [t for t in full["tests"] if not t["hidden"]]
    tests = [{"name": str(t["name"]), "status": t["status"], "hidden": False,
              "description": t.get("description"),
              "message": (t.get("message") or None) if public is not None else None,
              "duration_ms": t.get("duration_ms") if public is not None else None}
             for t in source if not t.get("hidden")]
    first_hidden = next((t for t in hidden if t["status"] != "passed"), None)
    hidden_summary = {"total": len(hidden), "passed": sum(t["status"] == "passed" for t in hidden),
                      "first_failed": str(first_hidden["name"]) if first_hidden else None}
    summary = {"total": len(tests) + len(hidden), "passed": hidden_summary["passed"], "failed": 0,
               "error": 0}
    for row in tests:
        summary[row["status"]] += 1
    summary["failed"] += len(hidden) - hidden_summary["passed"]
    output = (public or {}).get("output") or ""
    return bounded({
        "verdict": verdict,
        "message": _message(verdict, full, public, tests, hidden_summary),
        "tests": tests,
        "hidden": hidden_summary,
        "summary": summary,
        "syntax_error": full.get("syntax_error"),
        "output": output[-MAX_OUTPUT:] if output else None,
        "backend": full.get("backend"),
        # From the public-only run, like the tests' messages: the known mistakes its outcomes
        # match (authored text) and the trace diff of its first failing public case.
        "mistakes": (public or {}).get("mistakes") or [],
        "trace_diff": (public or {}).get("trace_diff"),
    })


def bounded(report: dict) -> dict:
    """``report`` with every number finite and in range, every message capped, and, if it is
    still over ``MAX_REPORT_BYTES`` as JSON, the optional parts (trace diff, mistakes, output)
    dropped: what is stored, and what a stored report is answered as."""
    report = dict(report)
    report["message"] = _text(report.get("message")) or ""
    report["tests"] = [_bounded_test(t) for t in report.get("tests") or [] if type(t) is dict]
    if type(report.get("output")) is str:
        report["output"] = report["output"][-MAX_OUTPUT:]
    if _deeper_than(report.get("trace_diff"), MAX_NESTING):
        report["trace_diff"] = None  # a forged trace nested past what a response can hold
    for optional in ("trace_diff", "mistakes", "output"):
        if len(json.dumps(report, default=str)) <= MAX_REPORT_BYTES:
            break
        report[optional] = [] if optional == "mistakes" else None
    return valid_unicode(report)


def _deeper_than(value, limit: int) -> bool:
    """Whether ``value`` nests lists and dicts more than ``limit`` deep (iteratively: a forged
    value may be deeper than the interpreter's recursion limit)."""
    stack = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if type(item) in (dict, list):
            if depth >= limit:
                return True
            stack.extend((v, depth + 1) for v in (item.values() if type(item) is dict else item))
    return False


def valid_unicode(value):
    """``value`` with every string valid Unicode: JSON carries lone surrogates (a learner's
    ``raise ValueError(chr(0xd800))`` sends one), which no response can encode; they become
    replacement characters (U+FFFD), in keys too."""
    if type(value) is str:
        return value.encode("utf-8", "surrogatepass").decode("utf-8", "replace") if _lone(value) else value
    if type(value) is dict:
        return {valid_unicode(k): valid_unicode(v) for k, v in value.items()}
    if type(value) is list:
        return [valid_unicode(v) for v in value]
    return value


def _lone(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _bounded_test(test: dict) -> dict:
    out = dict(test)
    out["message"] = _text(test.get("message"))
    duration = test.get("duration_ms")
    finite = type(duration) in (int, float) and -1 < duration < MAX_DURATION_MS * 2
    out["duration_ms"] = float(duration) if finite and math.isfinite(duration) else None
    return out


def _text(value):
    return value[:MAX_MESSAGE] if type(value) is str else None


def _message(verdict, full, public, tests, hidden) -> str:
    if verdict == ACCEPTED:
        return f"all {len(tests) + hidden['total']} tests passed"
    if verdict == SYNTAX_ERROR:
        return full["message"]  # from compiling the learner's own code: nothing ran
    if verdict == TIME_LIMIT:
        said = full.get("message")
        return next((fixed for start, fixed in TIME_LIMIT_MESSAGES if type(said) is str and said.startswith(start)),
                    FIXED_MESSAGES[TIME_LIMIT])
    if verdict in FIXED_MESSAGES:
        return FIXED_MESSAGES[verdict]
    # The headline comes from a test that decided the verdict: a public test whose status is
    # the verdict's (an error for a Runtime Error, a failure for a Wrong Answer), else the hidden
    # tests (a public test that merely failed does not explain a hidden test's crash).
    wanted = {RUNTIME_ERROR: ("error",), WRONG_ANSWER: ("failed",)}.get(verdict, ("failed", "error"))
    first = next((row for row in tests if row["status"] in wanted), None)
    if first is not None:
        detail = (first["message"] or "").strip().splitlines()
        return f"{first['name']}: {detail[0]}" if detail else f"{first['name']} {first['status']}"
    if hidden["first_failed"] is not None and verdict == RUNTIME_ERROR:
        return f"a hidden test raised an exception (the first hidden test not passed: {hidden['first_failed']})"
    if hidden["first_failed"] is not None:
        return f"hidden test {hidden['first_failed']} did not pass"
    if public is not None and public["verdict"] == verdict:
        return public["message"]  # the crash also happens with the public tests alone
    return "the program behaved differently when the hidden tests ran"
