"""Classes on a real Postgres (scaled mode): the schema by the migrations, and a dashboard whose
grid, late marks and mistake map come out as on SQLite (the aggregate query, the CASE over a
JSON column, time zones of the deadline)."""

import datetime as dt
import uuid

from server.classroom import dashboard as boards
from server.classroom import store
from server.classroom.tokens import TeacherTokens
from server.db import make_engine, make_sessionmaker, migrate
from server.models import Submission

UTC = dt.timezone.utc


def _add(session, key, exercise, verdict, when, mistakes=()):
    report = {"verdict": verdict, "mistakes": [{"mutant": m, "message": {"en": m}} for m in mistakes]}
    session.add(Submission(id=uuid.uuid4().hex, client_hash=key, exercise_id=exercise, code="x",
                           status="done", verdict=verdict, report=report, created_at=when, finished_at=when))


def test_a_class_dashboard_on_postgres(database_url):
    engine = make_engine(database_url)
    migrate(engine)
    sessions = make_sessionmaker(engine)
    deadline = dt.datetime(2030, 1, 1, 12, tzinfo=dt.timezone(dt.timedelta(hours=2)))
    with sessions() as session:
        teacher, _ = store.create_teacher(session, TeacherTokens(b"pg-secret-0123456789ab"), "pg")
        klass = store.create_class(session, teacher, name="pg", exercises=["a", "b"], lessons=[],
                                   deadline=deadline)
        ada, ben = "a" * 64, "b" * 64
        assert store.join(session, ada, klass.join_code, "Ada")
        assert store.join(session, ben, klass.join_code.lower(), "Ben")
        before, after = deadline - dt.timedelta(minutes=1), deadline + dt.timedelta(minutes=1)
        _add(session, ada, "a", "Wrong Answer", before, ["swapped"])
        _add(session, ada, "a", "Accepted", after)
        _add(session, ben, "a", "Wrong Answer", before, ["swapped"])
        _add(session, ben, "b", "Runtime Error", after)
        session.commit()
        board = boards.dashboard(session, klass)
    rows = {r["display_name"]: r for r in board["learners"]}
    assert rows["Ada"]["cells"]["a"]["best_verdict"] == "Accepted"
    assert (rows["Ada"]["cells"]["a"]["attempts"], rows["Ada"]["cells"]["a"]["late"]) == (2, 1)
    assert rows["Ada"]["cells"]["a"]["first_accepted_at"] == after.astimezone(UTC)
    assert rows["Ben"]["cells"]["b"] | {"stuck": False} == {
        "best_verdict": "Runtime Error", "attempts": 1, "first_accepted_at": None, "late": 1, "stuck": False}
    assert board["mistakes"]["a"] == {"wrong": 1, "known": [
        {"mutant": "swapped", "message": {"en": "swapped"}, "learners": 1}], "unknown": 0}
    assert board["mistakes"]["b"] == {"wrong": 1, "known": [], "unknown": 1}
    engine.dispose()
