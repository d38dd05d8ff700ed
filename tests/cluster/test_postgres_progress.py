"""Learner progress on a real Postgres: the table made by the migrations, writers racing on one
learner's row losing nothing (the conditional update of server/progress.py under Postgres's
read committed), and Accepted read from the submissions."""

import threading
import uuid

from server import progress as store
from server.db import make_engine, make_sessionmaker, migrate
from server.models import Submission

KEY = "p" * 64


def test_progress_on_postgres(database_url):
    engine = make_engine(database_url)
    migrate(engine)
    sessions = make_sessionmaker(engine)
    errors = []

    def writer(w: int) -> None:
        try:
            for i in range(10):
                with sessions() as session:
                    store.save(session, KEY, {
                        "lessons": {"01-recorded-graph": {"read": w == 0, "read_at": w, "cells": {f"w{w}-{i}": "matched"}}},
                        "exercises": {"graph-walk": {"hints": i, "passed": False}}})
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(w,)) for w in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    with sessions() as session:
        session.add(Submission(id=uuid.uuid4().hex, client_hash=KEY, exercise_id="graph-walk", code="x",
                               status="done", verdict="Accepted"))
        session.commit()
        kept = store.public(session, KEY)
    lesson = kept.lessons["01-recorded-graph"]
    assert set(lesson.cells) == {f"w{w}-{i}" for w in range(4) for i in range(10)}
    assert (lesson.read, lesson.read_at) == (False, 3)  # the newest mark
    assert kept.exercises["graph-walk"].model_dump() == {"hints": 9, "passed": True, "accepted": True}
    assert kept.updated_at is not None and kept.updated_at.tzinfo is not None
    engine.dispose()
