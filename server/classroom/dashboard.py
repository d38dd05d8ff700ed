"""A class's grid (learner × exercise) and mistake map, from its learners' stored submissions
to the class's exercises since each joined (store._class_work: what a class may read).

Two queries whatever the class's size: one aggregate per (learner, exercise) (attempts, first
Accepted, late attempts, the latest graded attempt), then the latest graded attempts
themselves, whose stored public report names the known mistakes the judge recognised.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy import DateTime, case, func, select, type_coerce
from sqlalchemy.orm import Session

from harness.vocabulary import ACCEPTED, MEMORY_LIMIT, RUNTIME_ERROR, TIME_LIMIT, WRONG_ANSWER
from server.classroom.store import enrollments, utc
from server.grading.report import valid_unicode
from server.models import Classroom, Enrollment, Submission


# Verdicts whose public outcomes the known-mistake matcher reads; a Syntax Error ran nothing.
MATCHED_VERDICTS = (WRONG_ANSWER, RUNTIME_ERROR, TIME_LIMIT, MEMORY_LIMIT)
DEFAULT_STUCK_ATTEMPTS = 5


@dataclass
class CellFacts:
    attempts: int = 0
    late: int = 0
    first_accepted_at: object = None
    latest_seq: int | None = None
    latest_verdict: str | None = None
    mistakes: list = field(default_factory=list)


def _aggregate(session: Session, klass: Classroom) -> dict[tuple[str, str], CellFacts]:
    accepted_at = func.min(case((Submission.verdict == ACCEPTED, Submission.created_at)))
    late = (func.sum(case((Submission.created_at > klass.deadline, 1), else_=0))
            if klass.deadline is not None else func.sum(0))
    query = (select(Submission.client_hash, Submission.exercise_id, func.count(),
                    type_coerce(accepted_at, DateTime(timezone=True)), late,
                    func.max(case((Submission.status == "done", Submission.seq))))
             .join(Enrollment, (Enrollment.client_hash == Submission.client_hash)
                   & (Enrollment.class_id == klass.id)
                   & (Submission.created_at >= Enrollment.joined_at))
             .where(Submission.exercise_id.in_(list(klass.exercises)))
             .group_by(Submission.client_hash, Submission.exercise_id))
    facts = {}
    for client, exercise, attempts, first, late_count, latest in session.execute(query):
        facts[client, exercise] = CellFacts(attempts=attempts, late=int(late_count or 0),
                                            first_accepted_at=utc(first), latest_seq=latest)
    return facts


def _latest(session: Session, facts: dict[tuple[str, str], CellFacts]) -> None:
    """Fill in each cell's latest graded verdict, and the mistakes its report matched."""
    by_seq = {cell.latest_seq: cell for cell in facts.values() if cell.latest_seq is not None}
    seqs = list(by_seq)
    for start in range(0, len(seqs), 500):  # bounded IN lists, on every database
        chunk = seqs[start:start + 500]
        for seq, verdict, report in session.execute(select(
                Submission.seq, Submission.verdict,
                case((Submission.verdict.in_(MATCHED_VERDICTS), Submission.report))).where(
                Submission.seq.in_(chunk))):
            cell = by_seq[seq]
            cell.latest_verdict = verdict
            cell.mistakes = mistakes_of(report)


def mistakes_of(report) -> list[dict]:
    """The known mistakes a stored report names, as ``{mutant, message}`` (whatever else an old
    report's entries held is left out)."""
    if not isinstance(report, dict) or not isinstance(report.get("mistakes"), list):
        return []
    return valid_unicode([{"mutant": m["mutant"], "message": _message(m)} for m in report["mistakes"]
                          if isinstance(m, dict) and isinstance(m.get("mutant"), str)])


def _cell(cell: CellFacts | None, stuck_attempts: int) -> dict:
    if cell is None:
        return {"best_verdict": None, "attempts": 0, "first_accepted_at": None, "late": 0,
                "stuck": False}
    best = ACCEPTED if cell.first_accepted_at is not None else cell.latest_verdict
    return {"best_verdict": best, "attempts": cell.attempts,
            "first_accepted_at": cell.first_accepted_at, "late": cell.late,
            "stuck": best != ACCEPTED and cell.attempts >= stuck_attempts}


def _mistake_map(exercises: list[str], people: list[Enrollment],
                 facts: dict[tuple[str, str], CellFacts]) -> dict[str, dict]:
    result = {}
    for exercise in exercises:
        wrong = unknown = 0
        known: dict[str, dict] = {}
        for person in people:
            cell = facts.get((person.client_hash, exercise))
            if cell is None or cell.latest_verdict in (None, ACCEPTED):
                continue
            wrong += 1
            if not cell.mistakes:
                unknown += 1
            for mistake in cell.mistakes:
                entry = known.setdefault(mistake["mutant"], {
                    "mutant": mistake["mutant"], "message": _message(mistake), "learners": 0})
                entry["learners"] += 1
        ranked = sorted(known.values(), key=lambda m: (-m["learners"], m["mutant"]))
        result[exercise] = {"wrong": wrong, "known": ranked, "unknown": unknown}
    return result


def _message(mistake: dict) -> dict[str, str]:
    message = mistake.get("message")
    if not isinstance(message, dict):
        return {}
    return {k: v for k, v in message.items() if isinstance(k, str) and isinstance(v, str)}


def dashboard(session: Session, klass: Classroom, stuck_attempts: int = DEFAULT_STUCK_ATTEMPTS) -> dict:
    """The grid's rows (one per learner, in joining order) and each exercise's mistake map."""
    people = enrollments(session, klass)
    facts = _aggregate(session, klass)
    _latest(session, facts)
    exercises = list(klass.exercises)
    rows = []
    for person in people:
        cells = {ex: _cell(facts.get((person.client_hash, ex)), stuck_attempts) for ex in exercises}
        rows.append({"id": person.id, "display_name": person.display_name,
                     "joined_at": utc(person.joined_at), "cells": cells,
                     "solved": sum(c["best_verdict"] == ACCEPTED for c in cells.values())})
    return {"exercises": exercises, "learners": rows,
            "mistakes": _mistake_map(exercises, people, facts), "stuck_attempts": stuck_attempts}
