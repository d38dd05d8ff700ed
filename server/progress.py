"""A learner's progress kept on the server for a server-issued identity, so that it follows the
learner to another browser that carries the same identity (README, "Progress").

The facts, per lesson: ``read`` (with ``read_at``, when it was last set or cleared) and each
cell's last result worth keeping (``matched`` once it matched); per exercise: the hints revealed
and whether its public tests passed in the page. Two copies merge without losing a fact: cells
and hints are unions (matched beats differs, the larger hint count wins), ``passed`` is an or,
and ``read`` is the copy with the newer ``read_at``. *Accepted* is never a fact a client sends:
it is read from this server's own verdicts of the learner's submissions at every answer."""

from __future__ import annotations

import datetime as dt
import functools
import json
import logging
import threading
import time
from pathlib import Path
from typing import Annotated, Literal

from fastapi import HTTPException
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from server.catalog import catalog_for
from server.models import LearnerProgress, Submission, utcnow

log = logging.getLogger("kael.server")

MAX_LESSONS = 100
MAX_CELLS = 50
MAX_EXERCISES = 200
MAX_HINTS = 50
WRITE_ATTEMPTS = 8  # optimistic writes racing another tab's before the answer is 503
# SQLite writes one transaction at a time anyway: the threads of one server queue here rather
# than race (on a loaded machine a writer lost 8 races in a row); the conditional write is left
# for another process writing the same file.
_SQLITE_WRITES = threading.Lock()

Key = Annotated[str, Field(min_length=1, max_length=100, pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")]
Millis = Annotated[int, Field(ge=0, le=2**53, description="milliseconds since 1970-01-01 UTC")]


class LessonProgress(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    read: bool = False
    read_at: Millis = Field(0, description="when read was last set or cleared; the newer one wins "
                                           "(a time past the server's clock counts as now)")
    cells: dict[Key, Literal["matched", "differs"]] = Field(default_factory=dict, max_length=MAX_CELLS)


class ExerciseProgress(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    hints: int = Field(0, ge=0, le=MAX_HINTS, description="hints revealed, one at a time")
    passed: bool = Field(False, description="its public tests passed in the page at least once")
    accepted: bool = Field(False, description="answers only: a submission of this identity was "
                                              "Accepted by this server; ignored in a request")


class Progress(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    lessons: dict[Key, LessonProgress] = Field(default_factory=dict, max_length=MAX_LESSONS)
    exercises: dict[Key, ExerciseProgress] = Field(default_factory=dict, max_length=MAX_EXERCISES)


class ProgressPublic(Progress):
    version: int = Field(description="grows by one with every change the server keeps")
    updated_at: dt.datetime | None = None


# ------------------------------------------------------------------------------ the lessons


@functools.lru_cache(maxsize=8)
def lesson_cells(root: Path) -> dict[str, frozenset[str]]:
    """Each lesson under ``root`` (a folder with a lesson.json, web/lessons/README.md) and the
    names of its cells; a lesson whose lesson.json does not load is left out and logged."""
    lessons: dict[str, frozenset[str]] = {}
    for meta in sorted(Path(root).glob("*/lesson.json")):
        try:
            cells = json.loads(meta.read_text(encoding="utf-8")).get("cells", {})
            lessons[meta.parent.name] = frozenset(str(name) for name in cells)
        except (OSError, ValueError, AttributeError) as exc:
            log.warning("skipping lesson %s: its lesson.json does not load: %s", meta.parent.name, exc)
    return lessons


def check_known(body: Progress, settings) -> None:
    """Every lesson, cell and exercise named is one this server has: else 422 naming it."""
    lessons = lesson_cells(settings.lessons_dir)
    for lesson, entry in body.lessons.items():
        if lesson not in lessons:
            raise HTTPException(422, detail=f"unknown lesson {lesson!r}")
        unknown = sorted(set(entry.cells) - lessons[lesson])
        if unknown:
            raise HTTPException(422, detail=f"lesson {lesson!r} has no cell {unknown[0]!r}")
    exercises = {e.id for e in catalog_for(settings.exercises_dir).exercises}
    for exercise in body.exercises:
        if exercise not in exercises:
            raise HTTPException(422, detail=f"unknown exercise {exercise!r}")


# ------------------------------------------------------------------------------ merging


def stored_form(body: Progress, now_ms: int) -> dict:
    """What is kept: no ``accepted`` (the server's verdicts say that), no time past now."""
    return {
        "lessons": {k: {"read": v.read, "read_at": min(v.read_at, now_ms), "cells": dict(v.cells)}
                    for k, v in body.lessons.items()},
        "exercises": {k: {"hints": v.hints, "passed": v.passed} for k, v in body.exercises.items()},
    }


def _merge_lesson(a: dict, b: dict) -> dict:
    newer = a if (a.get("read_at", 0), a.get("read", False)) >= (b.get("read_at", 0), b.get("read", False)) else b
    cells = dict(a.get("cells", {}))
    for name, result in b.get("cells", {}).items():
        if cells.get(name) != "matched":
            cells[name] = result
    return {"read": newer.get("read", False), "read_at": newer.get("read_at", 0), "cells": cells}


def _merge_exercise(a: dict, b: dict) -> dict:
    return {"hints": max(a.get("hints", 0), b.get("hints", 0)),
            "passed": bool(a.get("passed", False) or b.get("passed", False))}


def merge(a: dict, b: dict) -> dict:
    """The union of two stored copies: every fact of either is in the result."""
    out: dict = {"lessons": {}, "exercises": {}}
    for part, merge_one in (("lessons", _merge_lesson), ("exercises", _merge_exercise)):
        mine, theirs = a.get(part, {}), b.get(part, {})
        for key in sorted(set(mine) | set(theirs)):
            out[part][key] = merge_one(mine.get(key, {}), theirs.get(key, {}))
    return out


# ------------------------------------------------------------------------------ storage


def _row(session: Session, key: str, *, lock: bool = False) -> LearnerProgress | None:
    query = select(LearnerProgress).where(LearnerProgress.client_hash == key)
    if lock:
        query = query.with_for_update()
    return session.scalars(query.execution_options(populate_existing=True)).first()


def save(session: Session, key: str, incoming: dict) -> None:
    """Merge ``incoming`` into the learner's stored copy. A write names the version it merged
    into; when another request wrote first, the merge is done again on what that one kept. On
    Postgres the read locks the row (writers queue instead of retrying); SQLite has one writer
    at a time, so the read ends before the conditional write (a read transaction that turns
    into a write after another's commit would fail instead of waiting), and the threads of one
    server take turns (``_SQLITE_WRITES``)."""
    postgres = session.get_bind().dialect.name == "postgresql"
    if postgres:
        _save(session, key, incoming, postgres)
    else:
        with _SQLITE_WRITES:
            _save(session, key, incoming, postgres)


def _save(session: Session, key: str, incoming: dict, postgres: bool) -> None:
    for _ in range(WRITE_ATTEMPTS):
        row = _row(session, key, lock=postgres)
        if row is None:
            session.add(LearnerProgress(client_hash=key, data=merge({}, incoming), version=1, updated_at=utcnow()))
            try:
                session.commit()
                return
            except IntegrityError:  # the other request made the row first: merge into it
                session.rollback()
                continue
        merged, version = merge(row.data, incoming), row.version
        if merged == row.data or not postgres:
            session.commit()  # end the read (and release the lock): nothing to write, or SQLite
        if merged == row.data:
            return
        done = session.execute(update(LearnerProgress)
                               .where(LearnerProgress.client_hash == key, LearnerProgress.version == version)
                               .values(data=merged, version=version + 1, updated_at=utcnow()))
        session.commit()
        if done.rowcount == 1:
            return
    raise HTTPException(503, detail="this progress is being written by other requests; try again",
                        headers={"Retry-After": "1"})


def accepted_exercises(session: Session, key: str) -> set[str]:
    return set(session.scalars(select(Submission.exercise_id).distinct().where(
        Submission.client_hash == key, Submission.status == "done", Submission.verdict == "Accepted")))


def public(session: Session, key: str) -> ProgressPublic:
    """The stored copy with Accepted (and so passed) from this server's verdicts."""
    row = _row(session, key)
    data = row.data if row is not None else {"lessons": {}, "exercises": {}}
    exercises = {k: dict(v, accepted=False) for k, v in data.get("exercises", {}).items()}
    for exercise in accepted_exercises(session, key):
        exercises[exercise] = {**exercises.get(exercise, {"hints": 0}), "passed": True, "accepted": True}
    updated = row.updated_at if row is not None else None
    if updated is not None and updated.tzinfo is None:
        updated = updated.replace(tzinfo=dt.timezone.utc)  # SQLite keeps no time zone
    return ProgressPublic.model_validate({"lessons": data.get("lessons", {}), "exercises": exercises,
                                          "version": row.version if row is not None else 0,
                                          "updated_at": updated}, strict=False)


def now_ms() -> int:
    return int(time.time() * 1000)
