"""Grading as the server runs it: the sandbox check at start-up, then the worker pool."""

from __future__ import annotations

import compileall
import logging
from dataclasses import dataclass, field
from functools import partial

from sqlalchemy.orm import Session, sessionmaker

from server.core.config import REPO, Settings
from server.grading.harness import LocalRunner
from server.grading.pool import GradingPool
from server.grading.report import grade_submission
from server.grading.sandbox import SandboxError, SandboxRunner, self_test

log = logging.getLogger("kael.server")

# What the child sees as its environment: kael on its pure-Python backend (the sandbox shows no
# site-packages, so no numpy), as in the browser.
CHILD_ENV = {"KAEL_BACKEND": "python"}


@dataclass
class Grading:
    mode: str  # "sandbox", "unsandboxed" (KAEL_SANDBOX=off) or "unavailable"
    detail: str
    pool: GradingPool | None = field(default=None)

    @property
    def available(self) -> bool:
        return self.pool is not None

    def stop(self) -> None:
        if self.pool is not None:
            self.pool.stop()


def _banner(lines: list[str]) -> str:
    width = max(len(line) for line in lines) + 4
    return "\n".join(["", "!" * width, *[f"! {line.ljust(width - 4)} !" for line in lines], "!" * width])


def make_runner_factory(settings: Settings):
    if not settings.sandbox:
        return lambda slot: LocalRunner()
    return lambda slot: SandboxRunner(uid=settings.sandbox_uid_base + slot,
                                      kael_dir=settings.kael_dir,
                                      output_cap=settings.output_limit_bytes)


def check_sandbox(settings: Settings) -> str:
    """Run the self-test in every slot's sandbox; raises ``SandboxError``."""
    must_hide = [str(REPO), str(settings.data_dir), str(settings.exercises_dir), "/etc/shadow",
                 "/etc/passwd", "/home", "/var"]
    factory = make_runner_factory(settings)
    seconds = []
    for slot in range(settings.grading_workers):
        report = self_test(factory(slot), must_hide)
        seconds.append(report["duration_s"])
    return (f"bubblewrap sandbox, uids {settings.sandbox_uid_base}-"
            f"{settings.sandbox_uid_base + settings.grading_workers - 1}, self-test passed "
            f"({max(seconds) * 1000:.0f} ms)")


def start_grading(settings: Settings, sessions: sessionmaker[Session]) -> Grading:
    # The sandbox sees kael read-only: compile it once here, or every run compiles it again.
    compileall.compile_dir(str(settings.kael_dir), quiet=2)
    if settings.sandbox:
        try:
            detail = check_sandbox(settings)
        except (SandboxError, OSError) as exc:
            log.error(_banner([
                "GRADING IS DISABLED: the sandbox does not work on this machine.",
                str(exc)[:300],
                "Submissions are refused (503) until it does. For development only, start",
                "the server with KAEL_SANDBOX=off to grade without a sandbox.",
            ]))
            return Grading(mode="unavailable", detail="the sandbox self-test failed (see the server's log)")
        mode = "sandbox"
        log.info("grading: %s", detail)
    else:
        mode = "unsandboxed"
        detail = "KAEL_SANDBOX=off: submitted code runs WITHOUT a sandbox (development only)"
        log.warning(_banner([
            "KAEL_SANDBOX=off: SUBMITTED CODE RUNS WITHOUT A SANDBOX.",
            "It can read and write what this server's user can. Development only:",
            "never expose this server to anyone you do not trust.",
        ]))
    grade = partial(_grade, root=settings.exercises_dir)
    pool = GradingPool(workers=settings.grading_workers, queue_size=settings.queue_size,
                       sessions=sessions, make_runner=make_runner_factory(settings), grade=grade,
                       max_attempts=settings.max_attempts)
    pool.recover()
    pool.start()
    return Grading(mode=mode, detail=detail, pool=pool)


def _grade(exercise_id: str, code: str, runner, *, root) -> dict:
    from server.routes.exercises import lookup_exercise

    exercise = lookup_exercise(exercise_id, root)
    return grade_submission(exercise, code, runner, env=CHILD_ENV, root=root)
