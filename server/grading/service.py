"""Grading as the server runs it: the sandbox check at start-up, then a ``GradingBackend``:
the in-process pool, or the task queue in scaled mode (``backend.py``)."""

from __future__ import annotations

import compileall
import logging
from dataclasses import dataclass, field

from sqlalchemy.orm import Session, sessionmaker

from server.core.config import REPO, Settings
from server.grading.backend import GradingBackend
from server.grading.pool import GradingPool
from server.grading.runners import make_grade, make_runner_factory
from server.grading.sandbox import SandboxError, self_test

log = logging.getLogger("kael.server")


@dataclass
class Grading:
    mode: str  # "sandbox", "unsandboxed" (KAEL_SANDBOX=off) or "unavailable"
    detail: str
    pool: GradingBackend | None = field(default=None)  # the pool here, or the task queue

    @property
    def available(self) -> bool:
        return self.pool is not None

    def stop(self) -> None:
        if self.pool is not None:
            self.pool.stop()


def _banner(lines: list[str]) -> str:
    width = max(len(line) for line in lines) + 4
    return "\n".join(["", "!" * width, *[f"! {line.ljust(width - 4)} !" for line in lines], "!" * width])


def check_sandbox(settings: Settings, factory=None) -> str:
    """Run the self-test in every slot's sandbox; raises ``SandboxError``."""
    must_hide = [str(REPO), str(settings.data_dir), str(settings.exercises_dir), "/etc/shadow",
                 "/etc/passwd", "/home", "/var", "/root", "/work"]
    factory = factory or make_runner_factory(settings)
    seconds = []
    for slot in range(settings.grading_workers):
        report = self_test(factory(slot), must_hide)
        seconds.append(report["duration_s"])
    bounds = factory.cgroups.describe() if factory.cgroups else "no cgroups: per-process limits only"
    return (f"bubblewrap sandbox with seccomp, {bounds}, uids {settings.sandbox_uid_base}-"
            f"{settings.sandbox_uid_base + settings.grading_workers - 1}, self-test passed "
            f"({max(seconds) * 1000:.0f} ms)")


def check_grading(settings: Settings) -> tuple[str, str] | None:
    """Compile kael and check the sandbox: ``(mode, detail)``, or None (logged loudly) when
    the sandbox does not work here."""
    # The sandbox sees kael read-only: compile it once here, or every run compiles it again.
    compileall.compile_dir(str(settings.kael_dir), quiet=2)
    if not settings.sandbox:
        log.warning(_banner([
            "KAEL_SANDBOX=off: SUBMITTED CODE RUNS WITHOUT A SANDBOX.",
            "It can read and write what this server's user can. Development only:",
            "never expose this server to anyone you do not trust.",
        ]))
        return "unsandboxed", "KAEL_SANDBOX=off: submitted code runs WITHOUT a sandbox (development only)"
    try:
        detail = check_sandbox(settings)
    except (SandboxError, OSError) as exc:
        log.error(_banner([
            "GRADING IS DISABLED: the sandbox does not work on this machine.",
            str(exc)[:300],
            "Submissions are refused (503) until it does. For development only, start",
            "the server with KAEL_SANDBOX=off to grade without a sandbox.",
        ]))
        return None
    log.info("grading: %s", detail)
    return "sandbox", detail


def start_grading(settings: Settings, sessions: sessionmaker[Session]) -> Grading:
    if settings.grading_workers == 0:
        return _without_grading_here(settings, sessions)
    checked = check_grading(settings)
    if checked is None:
        return Grading(mode="unavailable", detail="the sandbox self-test failed (see the server's log)")
    mode, detail = checked
    if settings.scaled:
        from server.scaled.backend import start_task_queue  # here: see _without_grading_here

        return Grading(mode=mode, detail=detail + "; jobs through the task queue",
                       pool=start_task_queue(settings, sessions, grade_here=True))
    pool = GradingPool(workers=settings.grading_workers, queue_size=settings.queue_size,
                       sessions=sessions, make_runner=make_runner_factory(settings),
                       grade=make_grade(settings), max_attempts=settings.max_attempts,
                       client_slots=settings.client_slots or None,
                       client_wall_seconds=settings.client_wall_s)
    pool.recover()
    pool.start()
    return Grading(mode=mode, detail=detail, pool=pool)


def _without_grading_here(settings: Settings, sessions: sessionmaker[Session]) -> Grading:
    """``KAEL_GRADING_WORKERS=0``: the task queue's workers grade, or nothing does."""
    if not settings.scaled:
        return Grading(mode="unavailable", detail=(
            "KAEL_GRADING_WORKERS=0 and no task queue (it needs KAEL_DATABASE_URL="
            "postgresql+psycopg://...): nothing grades here"))
    # Imported here, not at the top: procrastinate takes most of a second to import and only
    # scaled mode needs it. (Not a cycle: the task queue's workers build their slots from
    # runners.py, never from this module.)
    from server.scaled.backend import start_task_queue

    return Grading(mode="sandbox" if settings.sandbox else "unsandboxed",
                   detail="graded by the task queue's workers (python -m server.worker); "
                          "this server grades nothing itself",
                   pool=start_task_queue(settings, sessions, grade_here=False))
