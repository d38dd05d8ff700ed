"""A control group per sandboxed run: the whole run's memory and process count, bounded together.

``RLIMIT_AS`` bounds one process's address space; a run that starts several processes, or fills
its ``/tmp`` (tmpfs pages and inodes are kernel memory), could still hold gigabytes of the
host. A cgroup bounds the sum: resident memory, tmpfs pages and kernel memory (inodes, dentries)
of every process of the run, and their number. The kernel's OOM killer acts inside the group
only, and the group's counters tell us afterwards that it did (Memory Limit Exceeded). The
group also counts the CPU time of all the run's processes, which tells the hard CPU limit's
SIGKILL (Time Limit Exceeded) from any other.

cgroup v2 where the host has it (one unified hierarchy); otherwise the v1 ``memory`` and
``pids`` controllers (and ``cpuacct`` where mounted), each in a ``kael-judge`` folder below this
process's own group. Where neither is writable, ``CgroupManager.detect`` returns None and the sandbox falls back to the
per-process limits alone (said once in the log and by ``/api/health``).
"""

from __future__ import annotations

import itertools
import logging
import os
import threading
import time
from pathlib import Path

from server.grading.harness import run_queue_wait

log = logging.getLogger("kael.server")

CGROUP_ROOT = Path("/sys/fs/cgroup")
GROUP = "kael-judge"
# Beyond the program's own limit: bwrap, its init, the wrapper, and page-table slack.
MEMORY_MARGIN = 64 * 1024 * 1024
EXTRA_PROCESSES = 4


def _own_path(controller: str) -> str | None:
    """This process's cgroup path for ``controller`` (``""`` for v2's unified line)."""
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        _, names, path = line.split(":", 2)
        if controller in names.split(","):
            return path
    return None


class Run:
    """One run's group(s): ``procs_files`` for the wrapper to join, ``cpu_seconds()`` and
    ``waited_seconds()`` while it runs, ``oom_killed()`` after."""

    def __init__(self, manager: "CgroupManager", dirs: list[Path], cpu_dir: Path | None = None):
        self.manager = manager
        self.dirs = dirs
        self.cpu_dir = cpu_dir

    @property
    def procs_files(self) -> list[str]:
        return [str(d / "cgroup.procs") for d in self.dirs]

    def oom_killed(self) -> bool:
        return self.manager.oom_kills(self.dirs[0]) > 0

    def cpu_seconds(self) -> float | None:
        """CPU time (user + system) of every process the run had; None where not counted."""
        if self.cpu_dir is None:
            return None
        try:
            if self.manager.version == 2:
                for line in (self.cpu_dir / "cpu.stat").read_text().splitlines():
                    key, _, value = line.partition(" ")
                    if key == "usage_usec":
                        return int(value) / 1e6
                return None
            return int((self.cpu_dir / "cpuacct.usage").read_text()) / 1e9
        except (OSError, ValueError):
            return None

    def waited_seconds(self) -> float | None:
        """The longest time one of the run's threads was ready but waited for a CPU (the wall
        deadline moves by it: a busy machine's wait is not the program's); None where unknown."""
        listing = "cgroup.threads" if self.manager.version == 2 else "tasks"
        try:
            tids = (self.dirs[0] / listing).read_text().split()
        except OSError:
            return None
        return run_queue_wait(tids)

    def remove(self) -> None:
        """Remove the group in the background: right after a run its last processes are still
        exiting, and waiting for them here would add ~10 ms to every run's latency."""
        threading.Thread(target=self.remove_now, name="cgroup-reaper", daemon=True).start()

    def remove_now(self) -> None:
        for d in self.dirs:
            _kill_and_remove(d)


def _kill_and_remove(d: Path) -> None:
    for _ in range(50):
        try:
            d.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError:  # still has processes: they are being killed with the sandbox
            kill = d / "cgroup.kill"
            try:
                if kill.exists():
                    kill.write_text("1")
                else:
                    for pid in (d / "cgroup.procs").read_text().split():
                        try:
                            os.kill(int(pid), 9)
                        except ProcessLookupError:
                            pass
            except OSError:
                pass
            time.sleep(0.002)
    log.warning("could not remove cgroup %s (left for the next start-up)", d)


def _v1_dir(controller: str, own: str | None) -> Path | None:
    """``kael-judge`` below this process's group in v1's ``controller`` hierarchy, where it is
    mounted on its own (``cpu,cpuacct`` may share one mount)."""
    if own is None:
        return None
    for mount in (controller, f"cpu,{controller}", f"{controller},cpu"):
        if (CGROUP_ROOT / mount / "cgroup.procs").exists():
            return CGROUP_ROOT / mount / own.lstrip("/") / GROUP
    return None


def _owner_alive(name: str) -> bool:
    """Whether the process that made group ``run-<pid>-<n>`` still runs: several grading
    processes (scaled mode's workers) share one parent group, and must not kill each other's."""
    pid = name.split("-")[1] if name.count("-") >= 2 else ""
    return pid.isdigit() and int(pid) != os.getpid() and Path(f"/proc/{pid}").exists()


class CgroupManager:
    """Creates and removes one group per run below ``bases`` (one per hierarchy)."""

    def __init__(self, version: int, memory_base: Path, pids_base: Path | None, cpu_base: Path | None = None):
        self.version = version
        self.memory_base = memory_base
        self.pids_base = pids_base
        self.cpu_base = cpu_base  # v1's cpuacct hierarchy; v2 counts CPU in the one group
        self._counter = itertools.count()

    @classmethod
    def detect(cls) -> "CgroupManager | None":
        if (CGROUP_ROOT / "cgroup.controllers").exists():
            own = _own_path("")
            base = CGROUP_ROOT / (own or "/").lstrip("/") / GROUP
            manager = cls(2, base, None)
        else:
            mem, pids, cpu = _own_path("memory"), _own_path("pids"), _own_path("cpuacct")
            if mem is None:
                return None
            manager = cls(1, CGROUP_ROOT / "memory" / mem.lstrip("/") / GROUP,
                          CGROUP_ROOT / "pids" / pids.lstrip("/") / GROUP if pids is not None else None,
                          _v1_dir("cpuacct", cpu))
        try:
            manager._prepare()
        except OSError as exc:
            log.warning("cgroups unavailable (%s): runs are bounded per process only", exc)
            return None
        return manager

    def describe(self) -> str:
        return f"cgroup v{self.version} at {self.memory_base}"

    def _prepare(self) -> None:
        if self.cpu_base is not None:
            try:
                self.cpu_base.mkdir(exist_ok=True)
            except OSError as exc:  # counting CPU is a refinement: memory and pids still bound the run
                log.warning("cgroup v1 cpuacct unavailable (%s): a run's CPU time is not counted", exc)
                self.cpu_base = None
        for base in filter(None, (self.memory_base, self.pids_base, self.cpu_base)):
            base.mkdir(exist_ok=True)
            for stale in base.iterdir():  # groups a killed server left behind
                if stale.is_dir() and stale.name.startswith("run-") and not _owner_alive(stale.name):
                    _kill_and_remove(stale)
        if self.version == 2:
            (self.memory_base / "cgroup.subtree_control").write_text("+memory +pids")
        # A trial group proves we may create, limit and remove groups here.
        self.create(memory_bytes=64 * 1024 * 1024, processes=8).remove_now()

    def create(self, *, memory_bytes: int, processes: int) -> Run:
        name = f"run-{os.getpid()}-{next(self._counter)}"
        memory = memory_bytes + MEMORY_MARGIN
        pids = processes + EXTRA_PROCESSES
        dirs = [self.memory_base / name]
        dirs[0].mkdir()
        try:
            if self.version == 2:
                (dirs[0] / "memory.max").write_text(str(memory))
                (dirs[0] / "memory.swap.max").write_text("0")
                (dirs[0] / "pids.max").write_text(str(pids))
            else:
                (dirs[0] / "memory.limit_in_bytes").write_text(str(memory))
                swap = dirs[0] / "memory.memsw.limit_in_bytes"
                if swap.exists():
                    swap.write_text(str(memory))
                if self.pids_base is not None:
                    dirs.append(self.pids_base / name)
                    dirs[-1].mkdir()
                    (dirs[-1] / "pids.max").write_text(str(pids))
                if self.cpu_base is not None:
                    dirs.append(self.cpu_base / name)
                    dirs[-1].mkdir()
        except OSError:
            Run(self, dirs).remove_now()
            raise
        return Run(self, dirs, dirs[0] if self.version == 2 else dirs[-1] if self.cpu_base else None)

    def oom_kills(self, d: Path) -> int:
        name = "memory.events" if self.version == 2 else "memory.oom_control"
        try:
            for line in (d / name).read_text().splitlines():
                key, _, value = line.partition(" ")
                if key == "oom_kill":
                    return int(value)
        except (OSError, ValueError):
            pass
        return 0
