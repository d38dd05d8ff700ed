"""Storage that the single server and the scaled mode share, on SQLite: the Alembic schema,
adopting the old hand-written one, grading attempts whose late results are dropped, and the
database-backed rate limiter (which must decide exactly as the in-memory one)."""

import random
import sqlite3

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import select

from server.core.ratelimit import MemoryLimiter
from server.db import current_revision, head_revision, make_engine, make_sessionmaker, migrate
from server.grading.attempt import claim, finish, grade_claimed
from server.models import Base, Submission
from server.scaled.ratelimit import DbRateLimiter


@pytest.fixture
def engine(tmp_path):
    engine = make_engine(f"sqlite:///{tmp_path / 'kael.db'}")
    yield engine
    engine.dispose()


def test_migrations_build_the_models_schema_and_run_once(engine):
    assert current_revision(engine) is None
    assert migrate(engine) == head_revision()
    assert migrate(engine) == head_revision()  # a second start finds nothing to do
    with engine.connect() as conn:
        assert compare_metadata(MigrationContext.configure(conn), Base.metadata) == []


HAND_WRITTEN_V1 = """
CREATE TABLE schema_version (version INTEGER PRIMARY KEY, description VARCHAR(200) NOT NULL);
INSERT INTO schema_version VALUES (1, 'submissions table');
CREATE TABLE submissions (
    seq INTEGER NOT NULL PRIMARY KEY, id VARCHAR(32) NOT NULL, client_hash VARCHAR(64) NOT NULL,
    exercise_id VARCHAR(100) NOT NULL, code TEXT NOT NULL, status VARCHAR(16) NOT NULL,
    verdict VARCHAR(40), report JSON, error TEXT, attempts INTEGER NOT NULL,
    created_at DATETIME NOT NULL, started_at DATETIME, finished_at DATETIME);
CREATE UNIQUE INDEX ix_submissions_id ON submissions (id);
CREATE INDEX ix_submissions_client_hash ON submissions (client_hash);
CREATE INDEX ix_submissions_exercise_id ON submissions (exercise_id);
CREATE INDEX ix_submissions_status ON submissions (status);
INSERT INTO submissions VALUES (1, 'old', 'c', 'adder', 'x = 1', 'done', 'Accepted', NULL, NULL,
                                1, '2026-01-01 00:00:00', NULL, NULL);
"""


def test_a_database_of_the_hand_written_schema_is_adopted_with_its_data(tmp_path, engine):
    with sqlite3.connect(tmp_path / "kael.db") as db:
        db.executescript(HAND_WRITTEN_V1)
    assert migrate(engine) == head_revision()
    with engine.connect() as conn:
        assert compare_metadata(MigrationContext.configure(conn), Base.metadata) == []
    with make_sessionmaker(engine)() as s:
        assert s.scalars(select(Submission.verdict)).all() == ["Accepted"]
    with sqlite3.connect(tmp_path / "kael.db") as db:
        tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert "schema_version" not in tables


def _store(sessions, submission_id="s1"):
    with sessions() as s:
        s.add(Submission(id=submission_id, client_hash="c" * 64, exercise_id="adder", code="x",
                         status="queued", attempts=0))
        s.commit()


def _row(sessions, submission_id="s1"):
    with sessions() as s:
        return s.scalars(select(Submission).where(Submission.id == submission_id)).one()


def test_a_late_attempt_never_overwrites_the_attempt_that_took_over(engine):
    """Worker A's lease ran out (it was only slow); B claimed the submission again and stored
    its verdict; A's result, arriving last, is dropped. Every interleaving of the two ends with
    exactly one final verdict, the one of the last claim."""
    migrate(engine)
    sessions = make_sessionmaker(engine)
    rng = random.Random(15)
    for case in range(20):
        sid = f"s{case}"
        _store(sessions, sid)
        a = claim(sessions, sid)
        b = claim(sessions, sid, statuses=("queued", "running"))
        assert (a.attempt, b.attempt) == (1, 2)
        order = [(a, "Wrong Answer"), (b, "Accepted")]
        rng.shuffle(order)
        stored = [finish(sessions, c, status="done", verdict=verdict) for c, verdict in order]
        assert stored == [c is b for c, _ in order]
        row = _row(sessions, sid)
        assert (row.status, row.verdict, row.attempts) == ("done", "Accepted", 2)
        assert claim(sessions, sid, statuses=("queued", "running")) is None  # final stays final


def test_an_attempt_past_the_limit_is_an_error_and_a_stopped_one_stores_nothing(engine):
    migrate(engine)
    sessions = make_sessionmaker(engine)
    _store(sessions)
    c = None
    for _ in range(4):
        c = claim(sessions, "s1", statuses=("queued", "running"))

    def never(*_):
        raise AssertionError("graded past the attempt limit")

    outcome = grade_claimed(c, never, runner=None, max_attempts=3)
    assert outcome["status"] == "error" and "interrupted 3 times" in outcome["error"]
    stopping = grade_claimed(c, lambda *_: {"verdict": "Accepted"}, runner=None, max_attempts=9,
                             stopping=lambda: True)
    assert stopping is None


@pytest.mark.parametrize("seed", range(5))
def test_the_database_limiter_decides_as_the_memory_limiter(engine, seed):
    """A seeded stream of allow/undo calls from a few keys at random times: the same answers."""
    migrate(engine)
    rng = random.Random(seed)
    now = [1000.0]
    limit, window = rng.randint(1, 4), rng.choice([5.0, 10.0, 30.0])
    memory = MemoryLimiter(limit, window, clock=lambda: now[0])
    database = DbRateLimiter(make_sessionmaker(engine), limit, window, clock=lambda: now[0])
    for _ in range(150):
        now[0] += rng.choice([0.0, 0.5, 1.0, 3.0, window])
        key = rng.choice("abc")
        if rng.random() < 0.1:
            memory.undo(key)
            database.undo(key)
            continue
        ok, wait = memory.allow(key)
        assert database.allow(key) == (ok, pytest.approx(wait))


def test_limiters_with_their_own_namespaces_do_not_share_events(engine):
    migrate(engine)
    sessions = make_sessionmaker(engine)
    clients = DbRateLimiter(sessions, 1, 60, namespace="client")
    addresses = DbRateLimiter(sessions, 1, 60, namespace="address")
    assert clients.allow("k")[0] and addresses.allow("k")[0]
    assert not clients.allow("k")[0] and not addresses.allow("k")[0]
    assert DbRateLimiter(sessions, 0, 60).allow("k") == (True, 0.0)  # 0: no limit


def test_no_grading_workers_without_a_task_queue_refuses_submissions(make_client):
    client = make_client(grading_workers=0)
    health = client.get("/api/health").json()
    assert health["grading"] == "unavailable"
    assert "KAEL_GRADING_WORKERS=0" in health["grading_detail"]
    token = client.post("/api/clients").json()["token"]
    r = client.post("/api/submissions", json={"exercise_id": "adder", "code": "x = 1"},
                    headers={"X-Client-Token": token})
    assert r.status_code == 503 and r.headers["Retry-After"]
    assert "nothing grades here" in r.json()["detail"]


def test_a_database_of_the_last_release_gains_classes_and_keeps_its_submissions(engine):
    """A database stopped at revision 0004 (before classes) is brought to head: its submissions
    stay, and the class tables and the dashboard's index are there."""
    from alembic import command

    from server.db import alembic_config

    with engine.connect() as conn:
        command.upgrade(alembic_config(conn), "0004")
        conn.commit()
    sessions = make_sessionmaker(engine)
    _store(sessions, "before-classes")
    assert current_revision(engine) == "0004"
    assert migrate(engine) == head_revision()
    with engine.connect() as conn:
        assert compare_metadata(MigrationContext.configure(conn), Base.metadata) == []
    assert _row(sessions, "before-classes").status == "queued"
    with sqlite3.connect(engine.url.database) as db:
        tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        indexes = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
    assert {"teachers", "classes", "enrollments"} <= tables
    assert "ix_submissions_class_board" in indexes
