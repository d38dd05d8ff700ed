"""A bounded pool of grading workers fed by a queue of submission ids.

Each worker is a thread with its own grading slot (its own sandbox uid); it takes an id, marks
the submission running, grades it (the sandboxed child processes do the work), and stores the
public report. Submissions are committed before they are queued, and ``recover`` re-queues those
a crash left queued or running, so none is lost.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Callable

from sqlalchemy import select, update
from sqlalchemy.orm import Session, sessionmaker

from server.grading.backend import QueueFull
from server.grading.fairqueue import FairQueue
from server.grading.report import reveal_delay
from server.grading.attempt import claim, finish, grade_claimed
from server.models import Submission

log = logging.getLogger("kael.server")

class GradingPool:
    def __init__(self, *, workers: int, queue_size: int, sessions: sessionmaker[Session],
                 make_runner: Callable[[int], object], grade: Callable[[str, str, object], dict],
                 max_attempts: int = 3, client_slots: int | None = None,
                 client_wall_seconds: float | None = None):
        self.workers = workers
        self.queue_size = queue_size
        self.sessions = sessions
        self.make_runner = make_runner
        self.grade = grade
        self.max_attempts = max_attempts
        self._queue = FairQueue(workers=workers, max_running=client_slots,
                                wall_seconds_per_minute=client_wall_seconds)
        self._lock = threading.Lock()
        self._pending = 0  # reserved or waiting in the queue
        self._running = 0
        self._threads: list[threading.Thread] = []
        self._runners: list[object] = []
        self._seconds_per_grade = 1.0  # moving average, for Retry-After
        self._stopping = threading.Event()

    # -- admission -------------------------------------------------------------------------------

    def reserve(self) -> None:
        """Hold a place in the queue, or raise ``QueueFull``."""
        with self._lock:
            if self._pending >= self.queue_size:
                raise QueueFull(self._wait_estimate())
            self._pending += 1

    def release(self) -> None:
        with self._lock:
            self._pending -= 1

    def enqueue(self, submission_id: str, client: str | None = None) -> None:
        """Queue an id whose place was reserved (or, from ``recover``, not); ``client`` is the
        server-issued client key, for scheduling fairly across clients."""
        self._queue.put(submission_id, client)

    def _wait_estimate(self) -> float:
        return self._seconds_per_grade * math.ceil((self._pending + 1) / max(self.workers, 1))

    def stats(self) -> dict:
        with self._lock:
            return {"queued": self._pending, "running": self._running}

    # -- lifecycle -------------------------------------------------------------------------------

    def start(self) -> None:
        for slot in range(self.workers):
            runner = self.make_runner(slot)
            self._runners.append(runner)
            t = threading.Thread(target=self._work, args=(runner,), name=f"grader-{slot}", daemon=True)
            t.start()
            self._threads.append(t)

    def recover(self) -> int:
        """Queue again what was left queued or running; returns how many."""
        with self.sessions() as s:
            s.execute(update(Submission).where(Submission.status == "running").values(status="queued"))
            s.commit()
            rows = s.execute(select(Submission.id, Submission.client_hash)
                             .where(Submission.status == "queued").order_by(Submission.seq)).all()
        ids = [row[0] for row in rows]
        with self._lock:
            self._pending += len(ids)
        for submission_id, client in rows:
            self._queue.put(submission_id, client)
        if ids:
            log.info("re-queued %d submissions left unfinished by the last run", len(ids))
        return len(ids)

    def stop(self, timeout: float = 5.0) -> None:
        """Stop taking work and kill the runs in progress (their submissions stay 'running' in
        the database and are graded again at the next start)."""
        self._stopping.set()
        self._queue.stop(len(self._threads))
        for runner in self._runners:
            cancel = getattr(runner, "cancel", None)
            if cancel:
                cancel()
        deadline = time.monotonic() + timeout
        for t in self._threads:
            t.join(max(0.0, deadline - time.monotonic()))

    # -- work ------------------------------------------------------------------------------------

    def _work(self, runner) -> None:
        while True:
            submission_id, client = self._queue.get()
            if submission_id is None or self._stopping.is_set():
                return
            with self._lock:
                self._pending -= 1
                self._running += 1
            start = time.monotonic()
            try:
                self._grade_one(submission_id, runner)
            except Exception:  # never let a worker die: the next submission must still run
                log.exception("grading %s failed", submission_id)
            finally:
                elapsed = time.monotonic() - start
                self._queue.done(client, elapsed)
                with self._lock:
                    self._running -= 1
                    self._seconds_per_grade = 0.8 * self._seconds_per_grade + 0.2 * elapsed

    def _grade_one(self, submission_id: str, runner) -> None:
        c = claim(self.sessions, submission_id)
        if c is None:
            return
        start = time.monotonic()
        outcome = grade_claimed(c, self.grade, runner, max_attempts=self.max_attempts,
                                stopping=self._stopping.is_set)
        if outcome is None:  # killed by stop(), left 'running' for the next start
            return
        # The time to a verdict depends on the run that had the hidden tests: publish it only
        # at the end of a coarse bucket (a timer, so the slot is free meanwhile).
        delay = reveal_delay(time.monotonic() - start)
        if delay <= 0:
            finish(self.sessions, c, **outcome)
            return
        timer = threading.Timer(delay, finish, args=(self.sessions, c), kwargs=outcome)
        timer.daemon = True
        timer.start()
