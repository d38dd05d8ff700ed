"""The workers' recovery sweep (server/scaled/sweeper.py) on a real Postgres: a job whose
acknowledgement was lost (the database restarted as its worker finished) is finished once its
submission has been graded for a lease, and no other job is touched."""

from __future__ import annotations

import asyncio
import datetime as dt

import procrastinate
from sqlalchemy import text

from server.db import make_engine, make_sessionmaker, migrate
from server.models import Submission
from server.scaled.jobs import conninfo, defer_async, make_app
from server.scaled.sweeper import finish_dangling


def _submission(sessions, sid: str, status: str, finished_ago_s: float | None) -> None:
    now = dt.datetime.now(dt.timezone.utc)
    with sessions() as s, s.begin():
        s.add(Submission(id=sid, client_hash="c" * 64, exercise_id="adder", code="x = 1", status=status,
                         finished_at=None if finished_ago_s is None else now - dt.timedelta(seconds=finished_ago_s)))


def test_a_job_left_doing_after_its_submission_was_graded_is_finished(database_url):
    engine = make_engine(database_url)
    migrate(engine)
    sessions = make_sessionmaker(engine)
    cases = {"graded-long-ago": ("done", 3600.0), "graded-just-now": ("done", 1.0),
             "still-running": ("running", None)}
    for sid, (status, ago) in cases.items():
        _submission(sessions, sid, status, ago)

    async def sweep() -> int:
        app = make_app(procrastinate.PsycopgConnector(conninfo=conninfo(database_url)))
        async with app.open_async():
            for sid in cases:
                assert await defer_async(app, sid)
            # as a worker leaves them when its acknowledgement is lost
            await app.connector.execute_query_async("UPDATE procrastinate_jobs SET status = 'doing'")
            return await finish_dangling(app, 60.0)

    assert asyncio.run(sweep()) == 1
    with engine.connect() as conn:
        left = dict(conn.execute(text("SELECT lock, status FROM procrastinate_jobs")).all())
    assert left == {"graded-just-now": "doing", "still-running": "doing"}
