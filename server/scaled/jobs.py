"""The task queue: procrastinate on the submissions' own Postgres.

One job per grading: task ``kael.grade`` with the submission id as its argument, its ``lock``
(no two jobs of one submission run at once) and its ``queueing_lock`` (at most one waits).
Its priority makes the queue fair between clients: a client's k-th waiting submission gets
priority -k, so everyone's first submission is graded before anyone's second.
"""

from __future__ import annotations

import logging

import procrastinate
import psycopg
from procrastinate import exceptions as pq_exceptions
from sqlalchemy import exc as sa_exc
from sqlalchemy.engine import make_url

log = logging.getLogger("kael.server")

QUEUE = "grading"
TASK = "kael.grade"


class GradingInterrupted(Exception):
    """The worker was stopping: the submission was left running, for another attempt."""


# Worth another try of the job: the worker stopped, or the database went away for a moment.
RETRIED = (GradingInterrupted, sa_exc.OperationalError, sa_exc.InterfaceError, psycopg.OperationalError)


def conninfo(sqlalchemy_url: str) -> str:
    """The libpq URI of a ``postgresql+psycopg://`` SQLAlchemy URL."""
    url = make_url(sqlalchemy_url)
    if url.get_backend_name() != "postgresql":
        raise ValueError(f"the task queue needs Postgres, not {url.get_backend_name()}")
    return url.set(drivername="postgresql").render_as_string(hide_password=False)


def grade_task(context: procrastinate.JobContext, submission_id: str) -> str:
    """The job: one grading attempt, by the worker process's runtime (server/scaled/worker.py)."""
    return context.additional_context["runtime"].grade_one(submission_id)


def make_app(connector) -> procrastinate.App:
    app = procrastinate.App(connector=connector)
    app.task(name=TASK, queue=QUEUE, pass_context=True,
             retry=procrastinate.RetryStrategy(max_attempts=50, wait=1, retry_exceptions=RETRIED),
             )(grade_task)
    return app


def _deferrer(app: procrastinate.App, submission_id: str, priority: int):
    return app.configure_task(TASK, lock=submission_id, queueing_lock=submission_id,
                              priority=priority)


def defer(app: procrastinate.App, submission_id: str, priority: int = 0) -> bool:
    """Queue a grading job; False when one is already waiting for this submission."""
    try:
        _deferrer(app, submission_id, priority).defer(submission_id=submission_id)
    except pq_exceptions.AlreadyEnqueued:
        return False
    return True


async def defer_async(app: procrastinate.App, submission_id: str, priority: int = 0) -> bool:
    try:
        await _deferrer(app, submission_id, priority).defer_async(submission_id=submission_id)
    except pq_exceptions.AlreadyEnqueued:
        return False
    return True
