"""How the untrusted child process is started: the ``Runner`` protocol and the local runner.

A runner gets a task directory that the harness has filled (the child script, the submission,
the test files and ``job.json``; never expected values, never the reference solution) and
starts ``python -I -B <task_dir>/<argv[0]> --sys-path <dir holding kael> <argv[1:]>`` with
``stdin`` on its standard input, within ``limits``. It returns what happened as a ``RunResult``.
The server's sandboxed runner implements the same protocol (see README.md).
"""

from __future__ import annotations

import importlib.util
import math
import os
import selectors
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, Protocol

__all__ = ["Limits", "RunResult", "Runner", "LocalRunner", "kael_parent_dir", "run_process", "kill_group",
           "cpu_limit_reached", "run_queue_wait", "CPU", "WALL", "WAIT_FACTOR"]

CPU, WALL = "cpu", "wall"  # the limit that stopped a run (RunResult.limit)
WAIT_FACTOR = 10  # a deadline moves by the run's wait for a CPU, up to this many times time_s


@dataclass(frozen=True)
class Limits:
    """Resource limits for one run of the child.

    ``time_s``: wall-clock deadline for the whole run, interpreter start included, moved by the
    time the run waited for a CPU (up to ``WAIT_FACTOR`` times ``time_s``): it stops a program
    that waits for something else (a sleep, input, a lock). At the deadline the whole process
    group is killed. ``cpu_s``: CPU seconds (RLIMIT_CPU, rounded up
    to whole seconds); a run that used them up timed out, whatever the wall clock said. An
    exercise's limits give the statement's time as ``cpu_s`` and a multiple of it as
    ``time_s`` (``catalog.WALL_FACTOR``), so that a busy machine slows a run without failing it.
    ``memory_mb``: address space (RLIMIT_AS). ``output_bytes``: cap on stdout and on stderr,
    each; the rest is discarded. ``file_bytes``: largest file the child may write
    (RLIMIT_FSIZE). ``processes``: RLIMIT_NPROC, or None for no limit (it counts every process
    of the user, so the local runner leaves it off by default).
    """

    time_s: float = 10.0
    cpu_s: float | None = None
    memory_mb: int = 512
    output_bytes: int = 1_000_000
    file_bytes: int = 16 * 1024 * 1024
    processes: int | None = None

    @property
    def cpu_seconds(self) -> int:
        return max(1, math.ceil(self.cpu_s if self.cpu_s is not None else self.time_s + 1))


@dataclass
class RunResult:
    """What a run produced. ``signal`` is the number of the signal that ended the child, if any
    (then ``exit_code`` is None); ``timed_out`` is True when the runner killed it at the
    wall-clock deadline (or the kernel did, for the CPU limit: SIGXCPU/SIGKILL after RLIMIT_CPU
    count as timed out only when the runner knows it, so the harness also treats SIGXCPU as a
    time limit; a SIGKILL after the whole CPU budget was used is the hard CPU limit, a time
    limit too). ``limit`` names the limit that stopped it: ``CPU`` (its budget used) or
    ``WALL`` (the deadline, with CPU time to spare); ``waited_s`` is how long the run was ready
    to run but waited for a CPU (where the runner can tell), by which its deadline moved."""

    exit_code: int | None
    signal: int | None
    stdout: bytes
    stderr: bytes
    timed_out: bool = False
    output_truncated: bool = False
    duration_s: float = 0.0
    memory_killed: bool = False  # a runner that can tell (cgroup OOM) says so here
    cpu_s: float = 0.0  # CPU seconds (user + system) of the process and the descendants it waited for
    limit: str | None = None
    waited_s: float = 0.0


class Runner(Protocol):
    def run(
        self,
        task_dir: Path,
        argv: list[str],
        limits: Limits,
        *,
        stdin: bytes = b"",
        env: Mapping[str, str] | None = None,
    ) -> RunResult: ...


def kael_parent_dir() -> str:
    """The directory to put on ``sys.path`` so that ``import kael`` works (kael is not imported)."""
    spec = importlib.util.find_spec("kael")
    if spec is None or not spec.submodule_search_locations:
        here = Path(__file__).resolve().parents[2]  # a source checkout: <repo>/exercises/harness
        if (here / "kael" / "__init__.py").exists():
            return str(here)
        raise RuntimeError("kael is not importable: install it, or run from a kael checkout")
    return str(Path(list(spec.submodule_search_locations)[0]).resolve().parent)


BASE_ENV = {
    "PATH": "/usr/local/bin:/usr/bin:/bin",
    "LANG": "C.UTF-8",
    "OPENBLAS_NUM_THREADS": "1",
    "OMP_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
}


@dataclass
class LocalRunner:
    """A plain subprocess with resource limits: its own session (so its whole process group can
    be killed), RLIMIT_AS/CPU/FSIZE/CORE (and NPROC when asked) set before exec, a wall-clock
    deadline, and capped output. Not a sandbox: the child can read what this user can read.
    Used by ``judge.py`` and the tests; the server plugs in its own runner."""

    python: str = field(default_factory=lambda: sys.executable)
    sys_path: tuple = ()  # extra import directories; kael's parent directory is always added

    def run(self, task_dir, argv, limits, *, stdin=b"", env=None) -> RunResult:
        task_dir = Path(task_dir)
        command = [self.python, "-I", "-B", str(task_dir / argv[0])]
        for p in (*self.sys_path, kael_parent_dir()):
            command += ["--sys-path", str(p)]
        command += list(argv[1:])
        child_env = dict(BASE_ENV)
        child_env["HOME"] = str(task_dir)
        if env:
            child_env.update(env)

        import resource

        def limit():
            mem = limits.memory_mb * 1024 * 1024
            cpu = limits.cpu_seconds
            resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
            resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
            resource.setrlimit(resource.RLIMIT_FSIZE, (limits.file_bytes, limits.file_bytes))
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
            if limits.processes is not None:
                resource.setrlimit(resource.RLIMIT_NPROC, (limits.processes, limits.processes))

        return run_process(command, limits, stdin=stdin, cwd=str(task_dir), env=child_env, preexec_fn=limit)


def run_process(command, limits, *, stdin=b"", cwd=None, env=None, preexec_fn=None,
                output_cap=None, on_start=None, decode=None, pass_fds=(), cpu_used=None,
                waited=None) -> RunResult:
    """Run ``command`` in its own session within ``limits.time_s`` (wall clock, moved by the
    time the run waited for a CPU) and an output cap per stream; the whole process group is
    killed at the deadline, on an output flood and at the end. Shared by every runner:
    ``LocalRunner`` here and the server's sandbox.

    ``on_start(proc)`` is called once the process exists (e.g. to register it for
    cancellation); ``decode(returncode) -> (exit_code, signal)`` lets a wrapper such as
    bubblewrap report its child's death. A SIGKILL the runner sent for an output flood is
    reported as ``output_truncated`` with no signal, so that it is not taken for the memory
    killer. ``pass_fds``: descriptors the process inherits (e.g. a wrapper's own input).
    ``cpu_used() -> seconds or None``: the CPU time of every process of the run so far (the
    sandbox's cgroup counts it); the run is stopped as timed out once that reaches the CPU
    budget, which RLIMIT_CPU alone bounds per process only (a run that forks has one each).
    ``waited() -> seconds or None``: how long the run waited for a CPU so far (default: the
    started process's own threads, from the kernel's scheduler statistics)."""
    cap = limits.output_bytes if output_cap is None else min(limits.output_bytes, output_cap)
    start = time.monotonic()
    proc = subprocess.Popen(
        command,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=cwd,
        env=env,
        start_new_session=True,
        preexec_fn=preexec_fn,
        close_fds=True,
        pass_fds=tuple(pass_fds),
    )
    if on_start is not None:
        on_start(proc)
    if waited is None:
        waited = lambda: run_queue_wait(_threads(proc.pid))  # noqa: E731
    watch = _Watch(start, limits, cpu_used, waited)
    try:
        out, err, truncated, timed_out = _communicate(proc, stdin, watch, cap)
    finally:
        kill_group(proc)
        cpu = _reap(proc)
    duration = time.monotonic() - start
    code = proc.returncode
    if decode is not None:
        exit_code, sig = decode(code)
    else:
        sig = -code if code is not None and code < 0 else None
        exit_code = None if sig is not None else code
    limit = watch.limit if timed_out else None
    if cpu_limit_reached(sig, cpu, limits):
        timed_out, limit = True, CPU  # RLIMIT_CPU (its soft limit, or its hard one): a time limit, not a crash
    elif truncated and sig == signal.SIGKILL and not timed_out:
        sig = None  # we killed it for flooding the output
    return RunResult(
        exit_code=exit_code,
        signal=sig,
        stdout=out,
        stderr=err,
        timed_out=timed_out,
        output_truncated=truncated,
        duration_s=duration,
        cpu_s=cpu or 0.0,
        limit=limit,
        waited_s=watch.waited_s,
    )


def cpu_limit_reached(sig, cpu_s, limits) -> bool:
    """Whether a run that ended by signal ``sig`` after ``cpu_s`` CPU seconds (None: unknown)
    was ended by RLIMIT_CPU: SIGXCPU at the soft limit, or SIGKILL at the hard one (for a program
    that ignored SIGXCPU) once the whole budget was used."""
    return sig == signal.SIGXCPU or (sig == signal.SIGKILL and cpu_s is not None and cpu_s >= limits.cpu_seconds)


def run_queue_wait(tids) -> float | None:
    """The longest time one of the threads ``tids`` was ready to run but waited for a CPU, in
    seconds (the second field of ``/proc/<tid>/schedstat``); None where the kernel does not say.
    Sleeping, reading input or waiting for a lock is not counted: only a busy machine's wait."""
    longest = None
    for tid in tids:
        try:
            with open(f"/proc/{tid}/schedstat", "rb") as f:
                wait = int(f.read().split()[1]) / 1e9
        except (OSError, ValueError, IndexError):
            continue
        longest = wait if longest is None or wait > longest else longest
    return longest


def _threads(pid) -> list:
    try:
        return os.listdir(f"/proc/{pid}/task")
    except OSError:
        return []


def _deadline(start, limits, waited_s) -> float:
    """The wall-clock deadline of a run started at ``start`` that has waited ``waited_s``
    seconds for a CPU: ``time_s`` later, moved by that wait up to ``WAIT_FACTOR * time_s``."""
    return start + limits.time_s + min(waited_s, WAIT_FACTOR * limits.time_s)


class _Watch:
    """When a run must stop: once its CPU time reaches its budget (``cpu_used``, where it can be
    counted), or at its wall deadline, moved by the time it waited for a CPU (``waited``). Both
    are read every ``CPU_CHECK_S``. ``limit`` names the limit that stopped it."""

    def __init__(self, start, limits, cpu_used, waited):
        self.start = start
        self.limits = limits
        self.cpu_used = cpu_used
        self.waited = waited
        self.waited_s = 0.0
        self.limit = None
        self._next_check = 0.0

    @property
    def deadline(self) -> float:
        return _deadline(self.start, self.limits, self.waited_s)

    def expired(self, now) -> bool:
        if now >= self._next_check:
            self._next_check = now + CPU_CHECK_S
            wait = self.waited()
            if wait is not None and wait > self.waited_s:
                self.waited_s = wait  # the largest seen: a thread that ended takes its count along
            used = self.cpu_used() if self.cpu_used is not None else None
            if used is not None and used >= self.limits.cpu_seconds:
                self.limit = CPU
                return True
        if now >= self.deadline:
            self.limit = WALL
            return True
        return False


def _exited(proc) -> bool:
    """True once ``proc`` has ended; it is left unreaped (WNOWAIT) for ``_reap`` to read its CPU time."""
    if proc.returncode is not None:
        return True
    try:
        return os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    except ChildProcessError:
        return True


def _reap(proc) -> float | None:
    """Wait for ``proc``, set its returncode, and give the CPU seconds (user + system) it and the
    descendants it waited for used; None if something else reaped it first."""
    if proc.returncode is not None:
        return None
    try:
        _, status, usage = os.wait4(proc.pid, 0)
    except ChildProcessError:
        proc.wait()
        return None
    proc.returncode = os.waitstatus_to_exitcode(status)
    return usage.ru_utime + usage.ru_stime


EXIT_GRACE_S = 0.25
CPU_CHECK_S = 0.1  # how often a run's CPU time is read, where it can be (run_process's cpu_used)


def kill_group(proc):
    """SIGKILL ``proc``'s whole process group (it leads its own session)."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _communicate(proc, stdin, watch, cap):
    """Feed stdin, read stdout and stderr up to ``cap`` bytes each until both close or ``watch``
    says a limit was reached; then the group is killed."""
    try:
        if stdin:
            proc.stdin.write(stdin)
        proc.stdin.close()
    except (BrokenPipeError, OSError):
        pass
    chunks = {proc.stdout: [], proc.stderr: []}
    sizes = {proc.stdout: 0, proc.stderr: 0}
    truncated = False
    timed_out = False
    sel = selectors.DefaultSelector()
    for f in chunks:
        os.set_blocking(f.fileno(), False)
        sel.register(f, selectors.EVENT_READ)
    exited_at = None
    try:
        while sel.get_map():
            now = time.monotonic()
            if exited_at is None and watch.expired(now):
                timed_out = True
                kill_group(proc)
                break
            if exited_at is None and _exited(proc):
                exited_at = now
            elif exited_at is not None and now - exited_at > EXIT_GRACE_S:
                break  # the child is gone; a process it left behind still holds the pipes
            for key, _ in sel.select(timeout=max(0.0, min(watch.deadline - now, 0.05 if exited_at else CPU_CHECK_S))):
                f = key.fileobj
                try:
                    data = os.read(f.fileno(), 65536)
                except BlockingIOError:
                    continue
                if not data:
                    sel.unregister(f)
                    continue
                room = cap - sizes[f]
                if room > 0:
                    chunks[f].append(data[:room])
                    sizes[f] += min(len(data), room)
                if len(data) > room:
                    truncated = True  # flooding output: stop the run now
                    kill_group(proc)
        # Both pipes closed: the child (and any grandchild holding them) is gone or detached.
        while not _exited(proc):
            if watch.expired(time.monotonic()):
                timed_out = True
                break
            time.sleep(0.005)
    finally:
        sel.close()
        proc.stdout.close()
        proc.stderr.close()
    return b"".join(chunks[proc.stdout]), b"".join(chunks[proc.stderr]), truncated, timed_out
