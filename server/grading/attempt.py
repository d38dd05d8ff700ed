"""One grading attempt of a stored submission, shared by the in-process pool and the scaled
mode's queue workers: claim it, grade it, store the outcome.

Each claim increments ``attempts`` and the final write is guarded by it (``status = 'running'
AND attempts = <this attempt>``): when a lease ran out and another worker claimed the
submission again, the first worker's late result is dropped, so a submission never gets two
different final verdicts.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from sqlalchemy import select, update
from sqlalchemy.orm import Session, sessionmaker

from server.grading.harness import UnknownExercise
from server.models import Submission, utcnow

log = logging.getLogger("kael.server")

JUDGE_FAILED = "the judge failed while grading this submission (not your code's fault)"


@dataclass(frozen=True)
class Claim:
    submission_id: str
    exercise_id: str
    code: str
    attempt: int  # the submission's ``attempts`` after this claim


def claim(sessions: sessionmaker[Session], submission_id: str,
          statuses: Iterable[str] = ("queued",), worker: str | None = None) -> Claim | None:
    """Mark the submission running as a new attempt, if its status is one of ``statuses``;
    ``worker`` names the grading process (``host:pid``), to see who holds what."""
    with sessions() as s:
        claimed = s.execute(
            update(Submission)
            .where(Submission.id == submission_id, Submission.status.in_(tuple(statuses)))
            .values(status="running", started_at=utcnow(), attempts=Submission.attempts + 1,
                    worker=worker)
        ).rowcount
        if not claimed:
            s.rollback()
            return None
        # read back in the same transaction: the row is ours (locked) until the commit
        row = s.execute(select(Submission.exercise_id, Submission.code, Submission.attempts)
                        .where(Submission.id == submission_id)).one()
        s.commit()
    return Claim(submission_id, row.exercise_id, row.code, row.attempts)


def grade_claimed(c: Claim, grade: Callable[[str, str, object], dict], runner, *,
                  max_attempts: int, stopping: Callable[[], bool] = lambda: False) -> dict | None:
    """The values to store for this attempt, or None when ``stopping()`` cut it short (the
    submission stays running, to be graded again)."""
    if c.attempt > max_attempts:
        return {"status": "error",
                "error": f"grading was interrupted {c.attempt - 1} times; this submission was not graded"}
    try:
        report = grade(c.exercise_id, c.code, runner)
        outcome = {"status": "done", "verdict": report["verdict"], "report": report}
    except UnknownExercise:
        outcome = {"status": "error", "error": f"exercise {c.exercise_id!r} no longer exists"}
    except Exception:  # HarnessError, or a bug: the submission is not to blame
        if not stopping():
            log.exception("grading submission %s (%s) failed", c.submission_id, c.exercise_id)
        outcome = {"status": "error", "error": JUDGE_FAILED}
    return None if stopping() else outcome


def finish(sessions: sessionmaker[Session], c: Claim, **values) -> bool:
    """Store the outcome of attempt ``c``; False when another attempt has taken over since."""
    with sessions() as s:
        stored = s.execute(
            update(Submission)
            .where(Submission.id == c.submission_id, Submission.status == "running",
                   Submission.attempts == c.attempt)
            .values(finished_at=utcnow(), **values)
        ).rowcount
        s.commit()
    if not stored:
        log.warning("submission %s: attempt %d finished after another attempt took over; its "
                    "result is dropped", c.submission_id, c.attempt)
    return bool(stored)
