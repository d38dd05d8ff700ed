"""What one grading slot runs: a runner (``make_runner_factory``: the sandbox, or a local
runner with ``KAEL_SANDBOX=off``) and the grading function (``make_grade``).

Below both ways of grading: the in-process pool (``server.grading.pool``, started by
``server.grading.service``) and the task queue's workers (``server.scaled.worker``) build their
slots from here, so neither imports the other.
"""

from __future__ import annotations

import logging
from functools import lru_cache, partial

from server.core.config import Settings
from server.grading import rootfs
from server.grading.cgroup import CgroupManager
from server.grading.harness import LocalRunner
from server.grading.kaelcopy import KaelTrees
from server.grading.report import grade_submission
from server.grading.sandbox import SandboxError, SandboxRunner

log = logging.getLogger("kael.server")

# What the child sees as its environment: kael on its pure-Python backend (the sandbox shows no
# site-packages, so no numpy), as in the browser.
CHILD_ENV = {"KAEL_BACKEND": "python"}


@lru_cache(maxsize=16)
def make_runner_factory(settings: Settings):
    """``slot -> runner``. For the sandbox, builds (or reuses) the in-memory root, stages this
    process's copy of kael (removing what a killed server left behind) and sets up cgroups."""
    if not settings.sandbox:
        return lambda slot: LocalRunner()
    try:
        root = rootfs.ensure_root()
        private = rootfs.stage_private(settings.kael_dir)
    except (OSError, rootfs.RootfsError) as exc:
        raise SandboxError(f"the sandbox's root file system could not be built: {exc}") from exc
    cgroups = CgroupManager.detect()
    if cgroups is None:
        log.warning("no usable cgroups: each sandboxed run is bounded per process only "
                    "(RLIMIT_AS, RLIMIT_NPROC), not in total")

    trees = KaelTrees(private)

    def make(slot: int) -> SandboxRunner:
        return SandboxRunner(uid=settings.sandbox_uid_base + slot, root=root, private=private,
                             cgroups=cgroups, output_cap=settings.output_limit_bytes, trees=trees)

    make.private = private  # removed by Grading.stop
    make.cgroups = cgroups
    return make


def make_grade(settings: Settings):
    """The grading function the pool and the queue workers call: (exercise id, code, runner)."""
    return partial(_grade, root=settings.exercises_dir)


def _grade(exercise_id: str, code: str, runner, *, root) -> dict:
    from server.catalog import lookup_exercise

    exercise = lookup_exercise(exercise_id, root)
    return grade_submission(exercise, code, runner, env=CHILD_ENV, root=root)
