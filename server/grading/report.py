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

from server.grading.harness import grade

ACCEPTED, SYNTAX_ERROR = "Accepted", "Syntax Error"
TIME_LIMIT, MEMORY_LIMIT = "Time Limit Exceeded", "Memory Limit Exceeded"
RUNTIME_ERROR, WRONG_ANSWER = "Runtime Error", "Wrong Answer"
MAX_OUTPUT = 8000
FIXED_MESSAGES = {
    TIME_LIMIT: "the program did not finish within the time limit",
    MEMORY_LIMIT: "the program ran out of memory",
}


def grade_submission(exercise, code: str, runner, *, env=None, root=None) -> dict:
    """The public report for ``code`` (``HarnessError``/``UnknownExercise`` propagate)."""
    full = grade(exercise, code, runner=runner, env=env, root=root, reveal_hidden=False)
    public = None
    if full["verdict"] not in (ACCEPTED, SYNTAX_ERROR):
        public = grade(exercise, code, runner=runner, env=env, root=root, public_only=True)
    return public_report(full, public)


def public_report(full: dict, public: dict | None) -> dict:
    shown = {t["name"]: t for t in public["tests"]} if public else {}
    tests = []
    for t in full["tests"]:
        row = {"name": str(t["name"]), "status": t["status"], "hidden": bool(t["hidden"]),
               "description": None, "message": None, "duration_ms": None}
        if not t["hidden"]:
            row["description"] = t.get("description")
            twin = shown.get(t["name"])
            if twin is not None and twin["status"] == t["status"]:
                row["message"] = twin.get("message") or None
                row["duration_ms"] = twin.get("duration_ms")
            elif twin is not None:
                row["message"] = (f"this test {twin['status']} when run alone, but "
                                  f"{t['status']} when run with the hidden tests")
        tests.append(row)
    summary = {"total": len(tests), "passed": 0, "failed": 0, "error": 0}
    for row in tests:
        summary[row["status"]] += 1
    verdict = full["verdict"]
    output = (public or {}).get("output") or ""
    return {
        "verdict": verdict,
        "message": _message(verdict, full, public, tests),
        "tests": tests,
        "summary": summary,
        "syntax_error": full.get("syntax_error"),
        "output": output[-MAX_OUTPUT:] if output else None,
        "backend": full.get("backend"),
    }


def _message(verdict, full, public, tests) -> str:
    if verdict == ACCEPTED:
        return f"all {len(tests)} tests passed"
    if verdict == SYNTAX_ERROR:
        return full["message"]  # from compiling the learner's own code: nothing ran
    if verdict in FIXED_MESSAGES:
        return FIXED_MESSAGES[verdict]
    wanted = "error" if verdict == RUNTIME_ERROR else "failed"
    first = next((row for row in tests if row["status"] == wanted), None)
    if first is not None and first["hidden"]:
        return f"hidden test {first['name']} " + ("raised an error" if wanted == "error" else "failed")
    if first is not None:
        detail = (first["message"] or "").strip().splitlines()
        return f"{first['name']}: {detail[0]}" if detail else f"{first['name']} {wanted}"
    if public is not None and public["verdict"] == verdict:
        return public["message"]  # the crash also happens with the public tests alone
    return "the program stopped abnormally while the hidden tests ran"
