"""The sandboxed runner: the harness's ``Runner`` protocol on bubblewrap + seccomp + cgroups.

One ``SandboxRunner`` per grading slot, each with its own unprivileged uid. A run is started as

    unshare --mount -- sh -c WRAPPER        (root, in a mount namespace of its own)
      joins the run's cgroup (memory and process count of the whole run, see cgroup.py),
      mounts a tmpfs with size= and nr_inodes= for the run's /tmp,
      sets the per-process limits (ulimit),
      exec bwrap --args 3                   (bwrap's arguments come on fd 3, not on its command line)
        new pid, net, ipc, uts, cgroup namespaces; a root made only of rootfs.py's in-memory
        copy of the interpreter, its standard library and libraries, and kael; a read-only copy
        of the task folder in the run's own root (below); no /proc at all (rootfs.ROOT_ENTRIES);
        a seccomp filter (seccomp.py)
        exec setpriv (slot uid, no capabilities, no_new_privs) -- python -I -S -B ...

Python starts with ``-I -S -B``: only the standard library and kael are importable, and nothing
else of the host exists inside. The task folder the harness writes on the host is not mounted:
bwrap copies its files (``--file``, from descriptors the server opens) into the run's own root,
a tmpfs of its own, then makes that root read-only; so their inode numbers count from that
run's start, where a host folder's said how many files the host's ``/dev/shm`` had been given
before (what other runs did). ``self_test`` proves the main properties before the server grades
anything.
"""

from __future__ import annotations

import json
import logging
import os
import secrets
import shutil
import signal
import socket
import stat
import subprocess
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

from server.grading import rootfs, seccomp
from server.grading.cgroup import CgroupManager
from server.grading.kaelcopy import KaelTrees
from server.grading.harness import CPU, Limits, RunResult, cpu_limit_reached, kill_group, run_process

log = logging.getLogger("kael.server")

KAEL_MOUNT = "/opt/kael"
TASK_MOUNT = "/task"
NOFILE = 64
# Processes per run (RLIMIT_NPROC of the slot uid, and the cgroup's pids.max): the program and
# a few it may start. The reference solution runs as another run of the same slot.
DEFAULT_PROCESSES = 4
# The run's /tmp: at most this many files and folders (each is kernel memory).
TMP_INODES = 4096
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
WRAPPER_FAILED = 125
# Runs as root in the run's own mount namespace, before bwrap: join the cgroups, mount /tmp.
WRAPPER = (
    # A failure here says so on stderr with a nonce only the server knows (the program inside
    # cannot forge a "sandbox failed" by exiting with 125 and printing the same words).
    'fail() { echo "$KAEL_NONCE: $1" >&2; exit 125; }; '
    'for f in $KAEL_CGROUPS; do echo $$ > "$f" || fail "cannot join cgroup $f"; done; '
    # the modes bwrap gives the task files (0444) whatever the server's umask
    'umask 022; '
    'mount -n -t tmpfs -o "size=$KAEL_TMP_SIZE,nr_inodes=$KAEL_TMP_INODES,mode=1777,nosuid,nodev" '
    'kael-tmp "$KAEL_TMP_DIR" || fail "cannot mount /tmp"; '
    # the per-process limits (dash's ulimit: -f in 512-byte blocks, -v in KiB); hard above soft
    # for the CPU, so that SIGXCPU comes first
    'ulimit -S -t "$KAEL_CPU" && ulimit -H -t "$KAEL_CPU_HARD" && ulimit -v "$KAEL_AS_KB" '
    '&& ulimit -p "$KAEL_NPROC" && ulimit -f "$KAEL_FSIZE_BLOCKS" && ulimit -n "$KAEL_NOFILE" '
    '&& ulimit -c 0 || fail "cannot set limits"; '
    'unset KAEL_NONCE; exec "$@"'
)


class SandboxError(RuntimeError):
    """The sandbox cannot be set up or did not pass its self-test."""


@dataclass
class SandboxRunner:
    """Runs ``python -I -S -B /task/<argv[0]> --sys-path /opt/kael <argv[1:]>`` in the sandbox.

    ``root``: the shared in-memory root (``rootfs.ensure_root()``); ``private``: this server's
    private folder (``rootfs.stage_private()``), holding kael's copy and the task folders;
    ``cgroups``: a ``CgroupManager``, or None where the host has no usable cgroups."""

    uid: int
    root: Path
    private: Path
    cgroups: CgroupManager | None = None
    output_cap: int = 1024 * 1024
    trees: KaelTrees | None = None  # kael without what a run's rules switch off (kaelcopy.py)
    tools: dict = field(default_factory=dict)

    def __post_init__(self):
        for tool in ("bwrap", "unshare", "mount", "sh"):
            path = shutil.which(tool)
            if path is None:
                raise SandboxError(f"{tool} is not installed (Debian: bubblewrap, util-linux)")
            self.tools[tool] = path
        self._running: set[subprocess.Popen] = set()  # the harness may run two at once
        self._lock = threading.Lock()
        self._nonce = "kael-sandbox-" + secrets.token_hex(8)

    # -- task folders: private to this slot's uid ------------------------------------------------

    def make_task_dir(self) -> Path:
        """A task folder with its final owner, group and mode (root, this slot's gid, 0750) from
        the moment it has its name in ``tasks/``: made in ``staging/`` (root's only), given
        them there, then renamed into place; a server killed at any instant leaves no task
        folder another slot could read, or that its own slot could not."""
        staging = Path(tempfile.mkdtemp(prefix=f"slot{self.uid}-", dir=self.private / "staging"))
        os.chown(staging, 0, self.uid)
        os.chmod(staging, 0o750)
        final = self.private / "tasks" / staging.name
        os.rename(staging, final)
        return final

    def seal_task_dir(self, task_dir: Path) -> None:
        """Readable by this slot's gid only (root owns it): no other user of the host, and no
        other slot, can read a task folder, hidden tests included."""
        for p in [task_dir, *task_dir.iterdir()]:
            os.chown(p, 0, self.uid)
            os.chmod(p, 0o750 if p.is_dir() else 0o640)

    # -- the command -----------------------------------------------------------------------------

    def job_rules(self, task_dir: Path) -> dict:
        """The exercise rules of the job in ``task_dir`` (``job.json``, written by the harness
        before the run; the program inside cannot write there), or ``{}``."""
        try:
            rules = json.loads((Path(task_dir) / "job.json").read_text(encoding="utf-8")).get("rules")
        except (OSError, ValueError, AttributeError):
            return {}
        return rules if type(rules) is dict else {}

    def kael_dir(self, rules: dict) -> Path:
        return self.trees.for_rules(rules) if self.trees else self.private / "kael"

    def bwrap_args(self, task_files: Mapping[str, int], argv: list[str], env: Mapping[str, str] | None,
                   filter_fd: int, kael_dir: Path | None = None) -> list[str]:
        """bwrap's options; ``task_files``: ``{name: descriptor}`` of the task folder's files
        (``open_task_files``), copied into ``/task`` in this order."""
        root = self.root
        task = ["--perms", "0555", "--dir", TASK_MOUNT]
        for name, fd in task_files.items():
            task += ["--perms", "0444", "--file", str(fd), f"{TASK_MOUNT}/{name}"]
        args = [
            "--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup",
            "--die-with-parent", "--new-session",
            "--ro-bind", str(root / "usr"), "/usr", "--ro-bind", str(root / "lib64"), "/lib64",
            "--symlink", "usr/lib", "/lib", "--symlink", "usr/bin", "/bin",
            "--perms", "0755", "--dir", "/opt", "--perms", "0755", "--dir", KAEL_MOUNT,
            "--ro-bind", str(kael_dir or self.private / "kael"), f"{KAEL_MOUNT}/kael",
            *task,
            "--bind", str(root / "tmp"), "/tmp",
            "--dev", "/dev",  # and no /proc (rootfs.ROOT_ENTRIES)
            "--chdir", "/tmp", "--clearenv",
            "--remount-ro", "/"]  # the root's own tmpfs, with /task's copies; not /tmp or /dev
        for key, value in {**BASE_ENV, **(env or {})}.items():
            args += ["--setenv", key, value]
        args += ["--seccomp", str(filter_fd), "--",
                 "/usr/bin/setpriv", f"--reuid={self.uid}", f"--regid={self.uid}", "--clear-groups",
                 "--no-new-privs", "--inh-caps=-all", "--bounding-set=-all", "--",
                 "/usr/bin/python3", "-I", "-S", "-B", f"{TASK_MOUNT}/{argv[0]}",
                 "--sys-path", KAEL_MOUNT, *argv[1:]]
        return args

    def command(self, args_fd: int, program: list[str]) -> list[str]:
        """The host command: the wrapper, then bwrap reading its options from ``args_fd``, then
        the ``program`` to run inside (bwrap takes only options from there). What pid 1
        inside shows as its command line is just this: no host path."""
        return [self.tools["unshare"], "--mount", "--propagation", "private", "--",
                self.tools["sh"], "-c", WRAPPER, "kael-sandbox",
                self.tools["bwrap"], "--args", str(args_fd), *program]

    def wrapper_env(self, limits: Limits, group, tmp_size: int) -> dict:
        cpu = limits.cpu_seconds
        return {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "KAEL_NONCE": self._nonce,
                "KAEL_CGROUPS": " ".join(group.procs_files) if group else "",
                "KAEL_TMP_SIZE": str(tmp_size), "KAEL_TMP_INODES": str(TMP_INODES),
                "KAEL_TMP_DIR": str(self.root / "tmp"),
                "KAEL_CPU": str(cpu), "KAEL_CPU_HARD": str(cpu + 1),
                "KAEL_AS_KB": str(limits.memory_mb * 1024),
                "KAEL_NPROC": str(limits.processes or DEFAULT_PROCESSES),
                "KAEL_FSIZE_BLOCKS": str(_fsize_blocks(limits.file_bytes)),
                "KAEL_NOFILE": str(NOFILE)}

    def run(self, task_dir, argv, limits, *, stdin=b"", env=None) -> RunResult:
        if not (self.root / ".complete").exists():  # /dev/shm was cleared under us: rebuild
            rootfs.ensure_root()
        task_files = open_task_files(Path(task_dir), limits.file_bytes)
        try:
            return self._run(task_dir, task_files, argv, limits, stdin, env)
        finally:
            for fd in task_files.values():
                os.close(fd)

    def _run(self, task_dir, task_files, argv, limits, stdin, env) -> RunResult:
        processes = limits.processes or DEFAULT_PROCESSES
        tmp_size = max(4 * limits.file_bytes, 8 * 1024 * 1024)
        group = (self.cgroups.create(memory_bytes=limits.memory_mb * 1024 * 1024 + tmp_size,
                                     processes=processes) if self.cgroups else None)
        args_r, args_w = os.pipe()
        filter_r, filter_w = os.pipe()
        started = []

        def register(proc):
            started.append(proc)
            with self._lock:
                self._running.add(proc)

        try:
            rules = self.job_rules(task_dir)
            args = self.bwrap_args(task_files, list(argv), env, filter_r, self.kael_dir(rules))
            split = args.index("--")
            _feed(args_w, b"".join(a.encode() + b"\0" for a in args[:split]))
            _feed(filter_w, seccomp.program(single_process=bool(rules)))
            result = run_process(
                self.command(args_r, args[split:]), limits, stdin=stdin, cwd="/",
                env=self.wrapper_env(limits, group, tmp_size),
                output_cap=self.output_cap, on_start=register, decode=_decode,
                pass_fds=(args_r, filter_r, *task_files.values()),
                cpu_used=group.cpu_seconds if group is not None else None,
                waited=group.waited_seconds if group is not None else _unknown,
            )
        finally:
            for fd in (args_r, filter_r):
                os.close(fd)
            with self._lock:
                self._running.difference_update(started)
            if group is not None:
                oom, cpu = group.oom_killed(), group.cpu_seconds()
                group.remove()
        if group is not None and oom:
            result.memory_killed = True
        elif group is not None and cpu is not None:
            # bwrap's monitor does not wait for the run's init, so the wrapper's rusage misses the
            # program: the group counted all of it
            result.cpu_s = cpu
            if cpu_limit_reached(result.signal, cpu, limits):
                result.timed_out, result.limit = True, CPU
        if result.exit_code == WRAPPER_FAILED and self._nonce.encode() in result.stderr:
            raise SandboxError("the sandbox could not be set up: "
                               + result.stderr.decode(errors="replace")[-500:])
        if result.signal == signal.SIGSYS:
            log.warning("sandbox uid %d: the system-call filter killed the program (SIGSYS): it "
                        "used a call the judge forbids (%s)", self.uid, ", ".join(seccomp.KILLED[:6]) + ", ...")
        return result

    def cancel(self) -> None:
        """Kill the runs in progress, if any (used at shutdown)."""
        with self._lock:
            running = list(self._running)
        for proc in running:
            kill_group(proc)


def open_task_files(task_dir: Path, file_bytes: int) -> dict[str, int]:
    """``{name: read-only descriptor}`` of every file of ``task_dir``, by name (the order bwrap
    creates them in, so the same task gets the same inode numbers). The harness writes only
    files; anything else, or a file bwrap could not write under the run's ``RLIMIT_FSIZE``, is
    a judge error. bwrap closes each descriptor once it has copied it."""
    fds: dict[str, int] = {}
    limit = _fsize_blocks(file_bytes) * 512  # RLIMIT_FSIZE as the wrapper sets it
    try:
        for name in sorted(os.listdir(task_dir)):
            try:
                fds[name] = fd = os.open(task_dir / name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
            except OSError as exc:
                raise SandboxError(f"task folder {task_dir}: cannot open {name}: {exc}") from exc
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                raise SandboxError(f"task folder {task_dir}: {name} is not a regular file (the "
                                   "sandbox gets copies of the task's files, nothing else)")
            if st.st_size > limit:
                raise SandboxError(f"task folder {task_dir}: {name} has {st.st_size} bytes, more "
                                   f"than the run's file size limit ({limit}) lets bwrap copy")
    except BaseException:
        for fd in fds.values():
            os.close(fd)
        raise
    return fds


def _fsize_blocks(file_bytes: int) -> int:
    """``RLIMIT_FSIZE`` in the 512-byte blocks of dash's ``ulimit -f``, at least one."""
    return max(1, file_bytes // 512)


def _feed(fd: int, data: bytes) -> None:
    """Write all of ``data`` into a pipe and close it (both fit in a pipe's buffer)."""
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    finally:
        os.close(fd)


def _unknown():
    """No cgroup lists the run's threads: its wait for a CPU is unknown (bwrap's own threads, the
    runner's default, only wait for their child)."""
    return None


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
import ctypes
report["seccomp"] = ctypes.CDLL(None).prctl(21, 0, 0, 0, 0)  # PR_GET_SECCOMP: 2 is a filter
report["root"] = sorted(os.listdir("/"))
report["task_in_root"] = os.stat("/task").st_dev == os.stat("/").st_dev
report["importable"] = sorted(n for n in ("pip", "numpy", "fastapi", "pytest", "setuptools")
                              if __import__("importlib.util").util.find_spec(n) is not None)
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
        task = runner.make_task_dir()
        Path(task, "probe.py").write_text(PROBE)
        runner.seal_task_dir(task)
        args = {"port": port, "hidden": must_hide}
        result = runner.run(task, ["probe.py"], Limits(time_s=15, memory_mb=256),
                            stdin=(json.dumps(args) + "\n").encode())
    finally:
        listener.close()
        if "task" in locals():
            shutil.rmtree(task, ignore_errors=True)
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
    if not report.get("task_in_root"):
        problems.append("/task is not a copy in the run's own root (a host folder's inode numbers "
                        "count the files the host made before)")
    extra = sorted(set(report["env"]) - set(BASE_ENV) - {"PWD", "LC_CTYPE"})
    if extra:
        problems.append("inherits environment variables " + ", ".join(extra))
    if report.get("seccomp") != 2:
        problems.append(f"no seccomp filter (PR_GET_SECCOMP: {report.get('seccomp')})")
    extra = sorted(set(report.get("root", ["?"])) - rootfs.ROOT_ENTRIES)
    if extra:
        problems.append("the root is not the allow-list: it holds " + ", ".join("/" + n for n in extra))
    if report.get("importable"):
        problems.append("can import " + ", ".join(report["importable"]))
    if not str(report.get("kael", "")).startswith(KAEL_MOUNT):
        problems.append(f"kael: {report.get('kael')}")
    if problems:
        raise SandboxError(f"{where}: " + "; ".join(problems))
    report["duration_s"] = round(result.duration_s, 3)
    return report
