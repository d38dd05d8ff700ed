"""A class's exports: the grid as CSV (one row per learner, the dashboard's cells), and every
submission of the class as JSON, streamed page by page (for an LMS import)."""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
from collections.abc import Iterator

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from server.classroom.store import enrollments, is_late, utc
from server.grading.report import bounded
from server.models import Classroom, Enrollment, Submission

PAGE = 500
# A spreadsheet runs a cell that starts with one of these as a formula (CSV injection): such a
# cell is written with a leading apostrophe, which spreadsheets show as text.
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _cell_text(value) -> str:
    if value is None:
        return ""
    if isinstance(value, dt.datetime):
        return utc(value).isoformat()
    text = str(value)
    return "'" + text if text.startswith(_FORMULA_START) else text


def grid_csv(board: dict) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    header = ["learner", "learner_id", "joined_at", "solved"]
    for ex in board["exercises"]:
        header += [f"{ex} verdict", f"{ex} attempts", f"{ex} first accepted", f"{ex} late",
                   f"{ex} stuck"]
    writer.writerow(header)
    for row in board["learners"]:
        line = [row["display_name"], row["id"], row["joined_at"], row["solved"]]
        for ex in board["exercises"]:
            cell = row["cells"][ex]
            line += [cell["best_verdict"], cell["attempts"], cell["first_accepted_at"],
                     cell["late"], "yes" if cell["stuck"] else ""]
        writer.writerow([_cell_text(v) for v in line])
    return out.getvalue()


def _class_json(klass: Classroom, people) -> dict:
    return {
        "id": klass.id, "name": klass.name, "exercises": list(klass.exercises),
        "lessons": list(klass.lessons),
        "deadline": utc(klass.deadline).isoformat() if klass.deadline else None,
        "learners": [{"id": p.id, "display_name": p.display_name,
                      "joined_at": utc(p.joined_at).isoformat()} for p in people],
    }


def _submission_json(klass: Classroom, learner_id: str, sub: Submission) -> dict:
    return {
        "id": sub.id, "learner_id": learner_id, "exercise_id": sub.exercise_id,
        "status": sub.status, "verdict": sub.verdict, "late": is_late(klass, sub.created_at),
        "created_at": utc(sub.created_at).isoformat(),
        "finished_at": utc(sub.finished_at).isoformat() if sub.finished_at else None,
        "code": sub.code, "report": bounded(sub.report) if type(sub.report) is dict else None,
    }


def submissions_json(sessions: sessionmaker[Session], class_id: str) -> Iterator[bytes]:
    """``{"class": {...}, "submissions": [...]}``, oldest first, in pages of PAGE rows, each
    page read in its own short session (a long download holds no transaction open)."""
    with sessions() as session:
        klass = session.get(Classroom, class_id)
        people = enrollments(session, klass)
        head = _class_json(klass, people)
    learner_of = {p.client_hash: p.id for p in people}
    yield b'{"class":' + json.dumps(head, ensure_ascii=True).encode() + b',"submissions":['
    after, first = 0, True
    while learner_of:
        with sessions() as session:
            klass = session.get(Classroom, class_id)
            page = list(session.scalars(select(Submission).join(Enrollment, (
                Enrollment.client_hash == Submission.client_hash) & (Enrollment.class_id == klass.id)
                & (Submission.created_at >= Enrollment.joined_at)).where(
                Submission.exercise_id.in_(list(klass.exercises)),
                Submission.seq > after).order_by(Submission.seq).limit(PAGE)))
            chunk = [_submission_json(klass, learner_of[s.client_hash], s) for s in page]
        if not page:
            break
        after = page[-1].seq
        for item in chunk:
            yield (b"" if first else b",") + _dumps(item)
            first = False
    yield b"]}"


def _dumps(item: dict) -> bytes:
    """Strict JSON in ASCII (a lone surrogate a report holds is written as its escape, never
    an encoding error mid-stream); a non-finite float (an old report) is written as null."""
    try:
        return json.dumps(item, ensure_ascii=True, allow_nan=False).encode()
    except ValueError:
        return json.dumps(_finite(item), ensure_ascii=True, allow_nan=False).encode()


def _finite(value):
    if isinstance(value, float):
        return value if value == value and abs(value) != float("inf") else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value
