"""The API server's side of the task queue: ``server.grading.backend.GradingBackend`` (what
``server.grading.pool.GradingPool`` offers the routes), on the shared database.

Admission counts the cluster's waiting submissions; ``enqueue`` defers a procrastinate job
after the submission's row is committed. Should that fail (the database cut at that moment),
the submission is still accepted: the workers' recovery sweep gives it a job.
"""

from __future__ import annotations

import logging
import math

import procrastinate
from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from server.core.config import Settings
from server.grading.backend import QueueFull
from server.models import Submission
from server.scaled.jobs import conninfo, defer, make_app

log = logging.getLogger("kael.server")

SECONDS_PER_GRADE = 1.0  # a rough figure for Retry-After when the queue is full


class TaskQueue:
    def __init__(self, settings: Settings, sessions: sessionmaker[Session], embedded=None):
        self.settings = settings
        self.sessions = sessions
        self.workers = settings.grading_workers
        self.queue_size = settings.queue_size
        self.embedded = embedded  # an EmbeddedWorker when this server grades too
        self.app = make_app(procrastinate.SyncPsycopgConnector(
            conninfo=conninfo(settings.sqlalchemy_url), min_size=1, max_size=4))
        self.app.open()

    def reserve(self) -> None:
        queued = self._count("queued")
        if queued >= self.queue_size:
            raise QueueFull(SECONDS_PER_GRADE * math.ceil((queued + 1) / max(self.workers, 1)))

    def release(self) -> None:
        pass  # nothing was held: admission is a count of the stored queue

    def enqueue(self, submission_id: str, client: str | None = None) -> None:
        try:
            defer(self.app, submission_id, self._priority(submission_id))
        except Exception as exc:
            log.warning("submission %s stored, but its grading job was not queued (%s); the "
                        "workers' recovery sweep will queue it", submission_id, exc)

    def _priority(self, submission_id: str) -> int:
        """Minus the number of this client's submissions waiting before this one."""
        with self.sessions() as s:
            mine = s.execute(select(Submission.client_hash, Submission.seq)
                             .where(Submission.id == submission_id)).one()
            ahead = s.scalar(select(func.count()).where(
                Submission.client_hash == mine.client_hash, Submission.status == "queued",
                Submission.seq < mine.seq))
        return -ahead

    def _count(self, status: str) -> int:
        with self.sessions() as s:
            return s.scalar(select(func.count()).where(Submission.status == status))

    def stats(self) -> dict:
        return {"queued": self._count("queued"), "running": self._count("running")}

    def stop(self) -> None:
        if self.embedded is not None:
            self.embedded.stop()
        self.app.close()


def start_task_queue(settings: Settings, sessions: sessionmaker[Session], *, grade_here: bool) -> TaskQueue:
    """The API server's queue; with ``grade_here``, also a worker in a background thread."""
    from server.scaled.worker import EmbeddedWorker, make_runtime

    embedded = None
    if grade_here:
        embedded = EmbeddedWorker(make_runtime(settings, sessions), settings)
        embedded.start()
    return TaskQueue(settings, sessions, embedded)
