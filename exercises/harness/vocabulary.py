"""The verdicts and test statuses, defined once in verdicts.json next to this file and read here
for every Python user (report.py, judge.py, the server's grading and API models); the front end
types itself from the same file (web/src/exercises/verdicts.ts). Standard library only: this runs
in the browser's Pyodide too, where export_exercises.py ships verdicts.json with the harness."""

from __future__ import annotations

import json
from pathlib import Path

__all__ = ["ACCEPTED", "WRONG_ANSWER", "RUNTIME_ERROR", "TIME_LIMIT", "MEMORY_LIMIT", "SYNTAX_ERROR",
           "VERDICTS", "STATUSES"]

_DATA = json.loads(Path(__file__).with_name("verdicts.json").read_text(encoding="utf-8"))
_NAMED: dict[str, str] = _DATA["verdicts"]

ACCEPTED = _NAMED["ACCEPTED"]
WRONG_ANSWER = _NAMED["WRONG_ANSWER"]
RUNTIME_ERROR = _NAMED["RUNTIME_ERROR"]
TIME_LIMIT = _NAMED["TIME_LIMIT"]
MEMORY_LIMIT = _NAMED["MEMORY_LIMIT"]
SYNTAX_ERROR = _NAMED["SYNTAX_ERROR"]
VERDICTS: tuple[str, ...] = tuple(_NAMED.values())
STATUSES: tuple[str, ...] = tuple(_DATA["statuses"])
