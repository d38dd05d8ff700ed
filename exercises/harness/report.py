"""The one report shape shared by judge.py, the server and the browser, and the syntax check.

    {
      "schema": 1,
      "exercise": "graph-walk",
      "verdict": "Accepted" | "Wrong Answer" | "Runtime Error" | "Time Limit Exceeded"
                 | "Memory Limit Exceeded" | "Syntax Error",
      "message": "one line that explains the verdict",
      "tests": [{"name", "description", "status": "passed" | "failed" | "error",
                 "message", "duration_ms", "hidden"}],
      "summary": {"total", "passed", "failed", "error"},
      "syntax_error": null | {"message", "line", "column", "text"},
      "output": "what the submission printed (stderr and stdout), truncated",
      "public_only": bool,
      "graded": bool,            true when the verdict was decided outside the submission's process
      "backend": "numpy" | "python" | null,
      "duration_ms": float       wall time of the submission's run
    }
"""

from __future__ import annotations

import re

from .child import compile_source
from .vocabulary import (  # the one home of these names: verdicts.json
    ACCEPTED, MEMORY_LIMIT, RUNTIME_ERROR, STATUSES, SYNTAX_ERROR, TIME_LIMIT, VERDICTS, WRONG_ANSWER,
)

__all__ = [
    "ACCEPTED", "WRONG_ANSWER", "RUNTIME_ERROR", "TIME_LIMIT", "MEMORY_LIMIT", "SYNTAX_ERROR",
    "VERDICTS", "SCHEMA", "check_syntax", "make_report", "syntax_report", "decide", "format_text",
    "time_limit_message", "WALL_STOPPED", "CPU_USED",
]

SCHEMA = 1


def check_syntax(code: str, filename: str = "solution.py"):
    """``None`` when ``code`` compiles; else ``{"message", "line", "column", "text"}``
    (line and column count from 1). Only for code this process may compile (the browser's own
    in-process runs); graded submissions are compiled inside their child process."""
    return compile_source(code, filename)[1]


def summarize(tests: list) -> dict:
    counts = {"total": len(tests), "passed": 0, "failed": 0, "error": 0}
    for t in tests:
        counts[t["status"]] += 1
    return counts


WALL_STOPPED = "the program was stopped by the wall clock"
CPU_USED = "the program used all of its"


def time_limit_message(limit, cpu_s, duration_s, cpu_budget) -> str:
    """Which time limit stopped a run: its CPU budget (``limit == "cpu"``), or the wall clock
    (``"wall"``), with the CPU time it had used. The two need different fixes: less work, or no waiting."""
    if limit == "wall":
        return (f"{WALL_STOPPED} after {duration_s:.1f} s, having used "
                f"{cpu_s:.1f} s of its {cpu_budget} s of CPU time: it was waiting (a sleep, input, "
                "a lock), not computing")
    if limit == "cpu":
        return f"{CPU_USED} {cpu_budget} s of CPU time without finishing"
    return "the program did not finish within the time limit"  # a runner that does not say which


def decide(tests: list, *, time_limit=None, memory=False, crashed=None) -> tuple:
    """``(verdict, message)`` from the per-test results and what happened to the process.

    Order: time limit (``time_limit``: the message that says which), memory limit, runtime
    error (a test errored or the process ended abnormally: ``crashed`` says how), wrong answer,
    accepted."""
    if time_limit:
        return TIME_LIMIT, time_limit
    if memory:
        return MEMORY_LIMIT, "the program ran out of memory"
    if crashed:
        return RUNTIME_ERROR, crashed
    first_error = next((t for t in tests if t["status"] == "error"), None)
    if first_error is not None:
        return RUNTIME_ERROR, f"{first_error['name']}: {first_error['message'].splitlines()[0] if first_error['message'] else 'error'}"
    first_fail = next((t for t in tests if t["status"] == "failed"), None)
    if first_fail is not None:
        return WRONG_ANSWER, f"{first_fail['name']} failed"
    if not tests:
        return RUNTIME_ERROR, "no test ran"
    return ACCEPTED, f"all {len(tests)} tests passed"


def make_report(exercise_id, verdict, message, tests, *, public_only, graded, output="",
                backend=None, duration_ms=0.0, syntax_error=None, mistakes=(), trace_diff=None) -> dict:
    return {
        "schema": SCHEMA,
        "exercise": exercise_id,
        "verdict": verdict,
        "message": message,
        "tests": tests,
        "summary": summarize(tests),
        "syntax_error": syntax_error,
        "output": output,
        "public_only": public_only,
        "graded": graded,
        "backend": backend,
        "duration_ms": round(duration_ms, 3),
        "mistakes": list(mistakes),
        "trace_diff": trace_diff,
    }


def syntax_report(exercise_id, error: dict, *, public_only: bool, graded: bool = True) -> dict:
    message = f"line {error['line']}, column {error['column']}: {error['message']}"
    return make_report(exercise_id, SYNTAX_ERROR, message, [], public_only=public_only,
                       graded=graded, syntax_error=error)


def test_entry(name, description, status, message, duration_ms, hidden) -> dict:
    return {
        "name": name,
        "description": description,
        "status": status,
        "message": message,
        "duration_ms": None if duration_ms is None else round(duration_ms, 3),
        "hidden": hidden,
    }


# -- text rendering (judge.py) ------------------------------------------------------------------

_COLOURS = {"passed": "32", "failed": "31", "error": "33", ACCEPTED: "1;32"}


def format_text(report: dict, colour: bool = False, lang: str = "en") -> str:
    def paint(text, key):
        code = _COLOURS.get(key, "1;31")
        return f"\x1b[{code}m{text}\x1b[0m" if colour else text

    lines = []
    if report["syntax_error"]:
        e = report["syntax_error"]
        lines.append(f"line {e['line']}, column {e['column']}: {e['message']}")
        if e["text"]:
            lines.append("    " + e["text"])
            if e["column"]:
                lines.append("    " + " " * (e["column"] - 1) + "^")
    marks = {"passed": "PASS", "failed": "FAIL", "error": "ERROR"}
    for t in report["tests"]:
        hidden = " (hidden)" if t["hidden"] else ""
        ms = f" {t['duration_ms']:.0f} ms" if t.get("duration_ms") is not None else ""
        lines.append(f"{paint(marks[t['status']].ljust(5), t['status'])} {t['name']}{hidden}{ms}")
        if t["status"] != "passed":
            lines.append(f"      {t['description']}")
            for line in t["message"].splitlines():
                lines.append("      " + line)
    if report["output"]:
        lines.append("")
        lines.append("output of the program:")
        lines.extend("  " + line for line in report["output"].rstrip().splitlines()[-40:])
    lines.extend(format_mistakes(report.get("mistakes"), lang))
    if report.get("trace_diff"):
        from .tracediff import format_trace_diff

        lines.append("")
        lines.extend(format_trace_diff(report["trace_diff"], lang).splitlines())
    s = report["summary"]
    lines.append("")
    lines.append(
        f"{paint(report['verdict'], report['verdict'])}: {report['message']} "
        f"({s['passed']}/{s['total']} passed)"
    )
    return "\n".join(lines)


_LOOKS_LIKE = {"en": "This looks like a known mistake:", "zh": "这看起来是一个常见错误："}
_MAYBE = {"en": "It may be one of these known mistakes:", "zh": "它可能是下面某个常见错误："}


def format_mistakes(mistakes, lang: str = "en") -> list:
    """The known-mistake section of the text report: a heading and each message, indented."""
    if not mistakes:
        return []
    lang = lang if lang in _LOOKS_LIKE else "en"
    lines = ["", (_LOOKS_LIKE if len(mistakes) == 1 else _MAYBE)[lang]]
    for m in mistakes:
        text = (m["message"].get(lang) or m["message"]["en"]).replace("**", "")  # bold is for the page
        lines.extend(_wrap("  * " if len(mistakes) > 1 else "  ", text))
    return lines


def display_width(text: str) -> int:
    """Columns the text takes in a terminal (CJK characters take two)."""
    import unicodedata

    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


# Chinese wraps between any two characters, except before closing punctuation.
_TOKENS = re.compile(r"\s+|[^\s\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef]+|.")
_NO_LINE_START = set("，。：；、！？）」』》")


def _wrap(first: str, text: str, width: int = 96) -> list:
    """``text`` in lines of at most ``width`` columns, the first starting with ``first``, the
    others indented as far: at spaces, and between Chinese characters."""
    indent = " " * len(first)
    lines, line, space = [], first, ""
    for token in _TOKENS.findall(text):
        if token.isspace():
            space = " " if line.strip() else ""
            continue
        fits = display_width(line + space + token) <= width or not line.strip() or token[0] in _NO_LINE_START
        if fits:
            line += space + token
        else:
            lines.append(line)
            line = indent + token
        space = ""
    lines.append(line)
    return lines
