"""A grading worker: procrastinate's worker on the ``grading`` queue, one sandbox slot per
concurrent job, restarted whenever it loses the database.

``run(settings, sessions, stop)`` is the whole worker; ``python -m server.worker`` runs it in
the main thread, an API server with ``KAEL_GRADING_WORKERS`` > 0 in a background thread.
"""

from __future__ import annotations

import asyncio
import logging
import os
import queue
import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

import procrastinate
from sqlalchemy.orm import Session, sessionmaker

from server.core.config import Settings
from server.grading.attempt import claim, finish, grade_claimed
from server.grading.runners import make_grade, make_runner_factory
from server.scaled.jobs import QUEUE, GradingInterrupted, conninfo, make_app
from server.scaled.sweeper import sweep_forever

log = logging.getLogger("kael.server")

RESTART_DELAY_S = 1.0
WORKER_NAME = f"{socket.gethostname()}:{os.getpid()}"


@dataclass
class Runtime:
    """What a job needs: the database, a free runner (sandbox slot), the grading function."""

    sessions: sessionmaker[Session]
    runners: list
    grade: Callable[[str, str, object], dict]
    max_attempts: int
    stopping: threading.Event = field(default_factory=threading.Event)

    def __post_init__(self):
        self._free: queue.Queue = queue.Queue()
        for runner in self.runners:
            self._free.put(runner)

    def grade_one(self, submission_id: str) -> str:
        runner = self._free.get()
        try:
            if self.stopping.is_set():
                raise GradingInterrupted(submission_id)
            # 'running' too: a job retried after its worker died takes the submission over
            c = claim(self.sessions, submission_id, statuses=("queued", "running"), worker=WORKER_NAME)
            if c is None:
                return "already graded"
            outcome = grade_claimed(c, self.grade, runner, max_attempts=self.max_attempts,
                                    stopping=self.stopping.is_set)
            if outcome is None:
                raise GradingInterrupted(submission_id)
            return "stored" if finish(self.sessions, c, **outcome) else "superseded"
        finally:
            self._free.put(runner)

    def interrupt(self) -> None:
        """Stop taking work and kill the sandboxed runs in progress."""
        self.stopping.set()
        for runner in self.runners:
            cancel = getattr(runner, "cancel", None)
            if cancel:
                cancel()


async def _run_once(runtime: Runtime, settings: Settings, stop: asyncio.Event, name: str) -> None:
    slots = len(runtime.runners)
    lease = settings.worker_lease_s
    connector = procrastinate.PsycopgConnector(conninfo=conninfo(settings.sqlalchemy_url),
                                               min_size=1, max_size=slots + 2)
    app = make_app(connector)
    async with app.open_async():
        worker = asyncio.create_task(app.run_worker_async(
            queues=[QUEUE], concurrency=slots, name=name, install_signal_handlers=False,
            update_heartbeat_interval=lease / 3, stalled_worker_timeout=lease,
            fetch_job_polling_interval=min(5.0, lease / 3), delete_jobs="successful",
            additional_context={"runtime": runtime}))
        sweeper = asyncio.create_task(sweep_forever(app, lease))
        stopped = asyncio.create_task(stop.wait())
        try:
            await asyncio.wait({worker, stopped}, return_when=asyncio.FIRST_COMPLETED)
            if stop.is_set():
                runtime.interrupt()
                worker.cancel()
            await asyncio.gather(worker, return_exceptions=stop.is_set())
        finally:
            sweeper.cancel()
            stopped.cancel()


async def run(runtime: Runtime, settings: Settings, stop: asyncio.Event) -> None:
    """Work until ``stop`` is set; a worker that fails (the database went away) starts again."""
    while not stop.is_set():
        try:
            await _run_once(runtime, settings, stop, WORKER_NAME)
        except Exception as exc:
            log.warning("grading worker stopped (%s: %s); starting again in %.0f s",
                        type(exc).__name__, str(exc)[:200], RESTART_DELAY_S)
        try:
            await asyncio.wait_for(stop.wait(), RESTART_DELAY_S)
        except TimeoutError:
            pass


class EmbeddedWorker:
    """The worker in a background thread of an API server (its own event loop)."""

    def __init__(self, runtime: Runtime, settings: Settings):
        self.runtime = runtime
        self.settings = settings
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._main, name="queue-worker", daemon=True)

    def _main(self) -> None:
        async def main():
            self._loop = asyncio.get_running_loop()
            self._stop = asyncio.Event()
            self._ready.set()
            await run(self.runtime, self.settings, self._stop)

        asyncio.run(main())

    def start(self) -> None:
        self._thread.start()
        self._ready.wait()

    def stop(self, timeout: float = 10.0) -> None:
        self.runtime.interrupt()
        if self._loop is not None and self._thread.is_alive():
            self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(timeout)


def make_runtime(settings: Settings, sessions: sessionmaker[Session]) -> Runtime:
    """A runtime with ``KAEL_GRADING_WORKERS`` slots, each its own runner (sandbox uid)."""
    factory = make_runner_factory(settings)
    return Runtime(sessions=sessions, runners=[factory(slot) for slot in range(settings.grading_workers)],
                   grade=make_grade(settings), max_attempts=settings.max_attempts)
