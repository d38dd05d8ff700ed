"""The sandboxed runner: the harness's ``Runner`` protocol on bubblewrap + setpriv + prlimit.

One ``SandboxRunner`` per grading slot, each with its own unprivileged uid (RLIMIT_NPROC counts
every process of a uid machine-wide). The child sees, read-only: ``/usr``, the interpreter's
prefix, kael's source at ``/opt/kael/kael`` and the task directory at ``/task``; a small private
``/tmp``; its own network (no interface up), pid, ipc and uts namespaces; no environment but
what we set. Python starts with ``-I -S -B``: no site-packages, so only the standard library
and kael are importable (kael on its pure-Python backend, as in the browser).

``self_test`` proves all of that by running a probe inside, before the server grades anything.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

from server.grading.harness import Limits, RunResult, kill_group, run_process

KAEL_MOUNT = "/opt/kael"
TASK_MOUNT = "/task"
NOFILE = 64
# RLIMIT_NPROC per slot uid: the submission, the reference solution's run (the harness runs it
# beside the first submission of an exercise) and two spare. Kept small because, without
# cgroups, a fork bomb's processes compete for the CPU with the other slots' runs.
DEFAULT_PROCESSES = 4
BASE_ENV = {
    "PATH": "/usr/bin",
    "LANG": "C.UTF-8",
    "HOME": "/tmp",
    "TMPDIR": "/tmp",
    "PYTHONHASHSEED": "0",
    "KAEL_BACKEND": "python",
    "OPENBLAS_NUM_THREADS": "1",
    "OMP_NUM_THREADS": "1",
}
# Signals a sandboxed child can die of; bwrap reports such a death as exit status 128 + N.
_DEATH_SIGNALS = {int(s) for s in (signal.SIGKILL, signal.SIGXCPU, signal.SIGXFSZ, signal.SIGSEGV,
                                   signal.SIGABRT, signal.SIGBUS, signal.SIGFPE, signal.SIGILL,
                                   signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGPIPE,
                                   signal.SIGSYS, signal.SIGTRAP)}


class SandboxError(RuntimeError):
    """The sandbox cannot be set up or did not pass its self-test."""


def _interpreter() -> tuple[str, list[str]]:
    """The real interpreter binary (not the venv's symlink) and the prefixes it needs."""
    python = os.path.realpath(sys.executable)
    prefixes = []
    for p in (sys.base_prefix, sys.base_exec_prefix):
        p = os.path.realpath(p)
        if p not in prefixes and not p.startswith("/usr/") and p != "/usr":
            prefixes.append(p)
    if not python.startswith("/usr/") and not any(python.startswith(p + "/") for p in prefixes):
        prefixes.append(os.path.dirname(python))
    return python, prefixes


def _parents(path: str) -> list[str]:
    """``/a/b/c`` -> ``['/a', '/a/b']``: directories bwrap must create world-readable."""
    parts = Path(path).parts[1:-1]
    return ["/" + "/".join(parts[: i + 1]) for i in range(len(parts))]


@dataclass
class SandboxRunner:
    """Runs ``python -I -S -B /task/<argv[0]> --sys-path /opt/kael <argv[1:]>`` in the sandbox."""

    uid: int
    kael_dir: Path
    output_cap: int = 1024 * 1024
    bwrap: str = "bwrap"
    prlimit: str = "prlimit"
    setpriv: str = "setpriv"

    def __post_init__(self):
        self.kael_dir = Path(self.kael_dir).resolve()
        self.python, self.prefixes = _interpreter()
        for tool in ("bwrap", "prlimit", "setpriv"):
            path = shutil.which(getattr(self, tool))
            if path is None:
                raise SandboxError(f"{tool} is not installed (Debian: bubblewrap, util-linux)")
            setattr(self, tool, path)
        self._running: set[subprocess.Popen] = set()  # the harness may run two at once
        self._lock = threading.Lock()

    def command(self, task_dir: Path, argv: list[str], limits: Limits,
                env: Mapping[str, str] | None = None) -> list[str]:
        memory = limits.memory_mb * 1024 * 1024
        cpu = limits.cpu_seconds
        processes = limits.processes or DEFAULT_PROCESSES
        tmp_size = max(4 * limits.file_bytes, 8 * 1024 * 1024)
        cmd = [
            self.prlimit, f"--cpu={cpu}:{cpu + 1}", f"--as={memory}", f"--nproc={processes}",
            f"--fsize={limits.file_bytes}", f"--nofile={NOFILE}", "--core=0", "--",
            self.bwrap, "--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
            "--unshare-cgroup-try", "--die-with-parent", "--new-session",
            "--ro-bind", "/usr", "/usr",
            "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64",
            "--symlink", "usr/bin", "/bin",
        ]
        made = {"/usr"}
        for target, source in [(p, p) for p in self.prefixes] + [
            (f"{KAEL_MOUNT}/kael", str(self.kael_dir)), (TASK_MOUNT, str(Path(task_dir).resolve()))
        ]:
            for parent in _parents(target):
                if parent not in made:
                    cmd += ["--perms", "0755", "--dir", parent]
                    made.add(parent)
            cmd += ["--ro-bind", source, target]
            made.add(target)
        cmd += [
            "--size", str(tmp_size), "--perms", "1777", "--tmpfs", "/tmp",
            "--proc", "/proc", "--dev", "/dev", "--chdir", "/tmp", "--clearenv",
        ]
        for key, value in {**BASE_ENV, **(env or {})}.items():
            cmd += ["--setenv", key, value]
        cmd += [
            self.setpriv, f"--reuid={self.uid}", f"--regid={self.uid}", "--clear-groups",
            "--no-new-privs", "--inh-caps=-all", "--bounding-set=-all", "--",
            self.python, "-I", "-S", "-B", f"{TASK_MOUNT}/{argv[0]}", "--sys-path", KAEL_MOUNT,
            *argv[1:],
        ]
        return cmd

    def run(self, task_dir, argv, limits, *, stdin=b"", env=None) -> RunResult:
        cmd = self.command(Path(task_dir), list(argv), limits, env)
        started = []

        def register(proc):
            started.append(proc)
            with self._lock:
                self._running.add(proc)

        try:
            return run_process(
                cmd, limits, stdin=stdin, cwd="/", env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"},
                output_cap=self.output_cap, on_start=register, decode=_decode,
            )
        finally:
            with self._lock:
                self._running.difference_update(started)

    def cancel(self) -> None:
        """Kill the runs in progress, if any (used at shutdown)."""
        with self._lock:
            running = list(self._running)
        for proc in running:
            kill_group(proc)


def _decode(returncode: int) -> tuple[int | None, int | None]:
    """bwrap's return code as (exit code, signal): bwrap reports its child's death by signal N
    as exit status 128 + N; a negative code is bwrap itself killed (by us, at the deadline)."""
    if returncode < 0:
        return None, -returncode
    if returncode > 128 and returncode - 128 in _DEATH_SIGNALS:
        return None, returncode - 128
    return returncode, None


# ------------------------------------------------------------------------------- self-test

PROBE = r'''
import json, os, socket, sys
args = json.loads(sys.stdin.readline())
report = {"uid": os.getuid(), "gid": os.getgid(), "euid": os.geteuid(), "pid": os.getpid(),
          "env": sorted(os.environ), "visible": [], "writable_task": False}
try:
    s = socket.create_connection(("127.0.0.1", args["port"]), timeout=2)
    s.close()
    report["network"] = "connected"
except OSError as exc:
    report["network"] = type(exc).__name__ + ": " + str(exc)
for path in args["hidden"]:
    if os.path.exists(path):
        report["visible"].append(path)
try:
    open("/task/probe-write", "w").close()
    report["writable_task"] = True
except OSError:
    pass
try:
    sys.path.insert(0, sys.argv[sys.argv.index("--sys-path") + 1])
    import kael
    report["kael"] = kael.__file__
except Exception as exc:
    report["kael"] = "import failed: " + repr(exc)
print(json.dumps(report))
'''


def self_test(runner: SandboxRunner, must_hide: list[str]) -> dict:
    """Run a probe in the sandbox and check what it saw; raises ``SandboxError`` saying what
    failed. ``must_hide``: host paths that must not exist inside (the repo, the data dir)."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    port = listener.getsockname()[1]
    try:
        with tempfile.TemporaryDirectory(prefix="kael-selftest-") as task:
            os.chmod(task, 0o755)
            Path(task, "probe.py").write_text(PROBE)
            os.chmod(Path(task, "probe.py"), 0o644)
            args = {"port": port, "hidden": must_hide}
            result = runner.run(Path(task), ["probe.py"], Limits(time_s=15, memory_mb=256),
                                stdin=(json.dumps(args) + "\n").encode())
    finally:
        listener.close()
    where = f"sandbox self-test (uid {runner.uid})"
    if result.exit_code != 0:
        raise SandboxError(f"{where}: the probe exited with {result.exit_code}, signal "
                           f"{result.signal}: {result.stderr.decode(errors='replace')[-800:]}")
    try:
        report = json.loads(result.stdout.decode().strip().splitlines()[-1])
    except (ValueError, IndexError):
        raise SandboxError(f"{where}: unreadable probe output {result.stdout[:200]!r}") from None
    problems = []
    if (report["uid"], report["euid"], report["gid"]) != (runner.uid,) * 3:
        problems.append(f"runs as uid {report['uid']}/{report['euid']} gid {report['gid']}, "
                        f"expected {runner.uid}")
    if report["pid"] > 10:
        problems.append(f"pid {report['pid']}: no pid namespace")
    if report["network"] == "connected":
        problems.append("reached a socket listening on the host's loopback")
    if report["visible"]:
        problems.append("sees host paths " + ", ".join(report["visible"]))
    if report["writable_task"]:
        problems.append("can write to /task")
    extra = sorted(set(report["env"]) - set(BASE_ENV) - {"PWD", "LC_CTYPE"})
    if extra:
        problems.append("inherits environment variables " + ", ".join(extra))
    if not str(report.get("kael", "")).startswith(KAEL_MOUNT):
        problems.append(f"kael: {report.get('kael')}")
    if problems:
        raise SandboxError(f"{where}: " + "; ".join(problems))
    report["duration_s"] = round(result.duration_s, 3)
    return report
