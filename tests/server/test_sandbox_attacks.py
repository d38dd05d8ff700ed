"""Attacks on the sandbox itself, each one a finding of the red-team passes (issues 11 and 17):
the kernel keyring, new namespaces and mounts, page-cache residency probes, machine-wide
counters, memory and inodes beyond the per-process limits, host paths and third-party packages
in view, and task folders left readable. Each runs the attack in the real sandbox."""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import tempfile
import textwrap
import time
from dataclasses import replace
from pathlib import Path

import pytest
from _support import captured_log, needs_sandbox, uid_base

from server.core.config import REPO, load_settings
from server.grading import rootfs
from server.grading.harness import Limits
from server.grading.runners import make_runner_factory

LIMITS = Limits(time_s=20, memory_mb=256)


@pytest.fixture(scope="module")
def runner():
    needs_sandbox()
    return make_runner_factory(replace(load_settings(), sandbox_uid_base=uid_base()))(0)


def run(runner, source, limits=LIMITS):
    task = runner.make_task_dir()
    (task / "main.py").write_text(textwrap.dedent(source))
    runner.seal_task_dir(task)
    try:
        return runner.run(task, ["main.py"], limits)
    finally:
        subprocess.run(["rm", "-rf", str(task)], check=False)


def output(result) -> dict:
    assert result.exit_code == 0, result.stderr.decode(errors="replace")[-2000:]
    return json.loads(result.stdout.decode().strip().splitlines()[-1])


LIBC = "import ctypes; libc = ctypes.CDLL(None, use_errno=True)\n"


# -- issue 11.1: the kernel keyring, and everything else the filter kills ---------------------------

@pytest.mark.parametrize("name, call", [
    ("add_key", LIBC + "libc.syscall(248, b'user', b'hidden', b'data', 4, -2)"),        # KEY_SPEC_PROCESS
    ("keyctl persistent", LIBC + "libc.syscall(250, 22, -1, -2)"),                        # KEYCTL_GET_PERSISTENT
    ("request_key", LIBC + "libc.syscall(249, b'user', b'hidden', None, 0)"),
    ("unshare user+mount", LIBC + "libc.unshare(0x10000000 | 0x00020000)"),
    ("clone new user ns", LIBC + "libc.syscall(56, 0x10000000 | 17, 0, 0, 0, 0)"),
    ("mount", LIBC + "libc.mount(b'none', b'/tmp', b'tmpfs', 0, None)"),
    ("ptrace", LIBC + "libc.ptrace(16, 1, 0, 0)"),
    ("bpf", LIBC + "libc.syscall(321, 0, 0, 0)"),
    ("io_uring_setup", LIBC + "libc.syscall(425, 8, 0)"),
    ("userfaultfd", LIBC + "libc.syscall(323, 0)"),
    ("perf_event_open", LIBC + "libc.syscall(298, 0, 0, -1, -1, 0)"),
    # issue 22.2: a watch on the shared root saw every file another slot's run opened
    ("inotify_init1", LIBC + "libc.syscall(294, 0)"),
    ("inotify_init", LIBC + "libc.syscall(253)"),
    ("inotify_add_watch", LIBC + "libc.syscall(254, 0, b'/usr', 1)"),
    ("fanotify_mark", LIBC + "libc.syscall(301, 0, 1, 1, -100, b'/usr')"),
])
def test_forbidden_system_calls_kill_the_program_and_are_logged(runner, name, call):
    with captured_log() as records:
        result = run(runner, call + "\nprint('survived')\n")
    assert result.signal == signal.SIGSYS, (name, result.exit_code, result.stdout, result.stderr[-500:])
    assert b"survived" not in result.stdout
    assert any("system-call filter killed" in r.getMessage() for r in records)


def _unlisted_calls() -> dict[int, str]:
    """Every system call of this architecture that the filter neither allows nor kills."""
    import pyseccomp as sc

    from server.grading import seccomp
    listed = set(seccomp.ALLOWED) | set(seccomp.KILLED) | {"clone", "clone3"}
    calls = {}
    for number in range(600):
        try:
            name = sc.resolve_syscall(sc.Arch.NATIVE, number)
        except (RuntimeError, ValueError, OSError):
            continue
        name = name.decode() if isinstance(name, bytes) else name
        if name and not name.startswith("__") and name not in listed:
            calls[number] = name
    return calls


def test_every_call_outside_the_allow_list_is_refused_and_the_program_goes_on(runner):
    """The filter is an allow-list: each of the ~150 calls it does not name fails with EPERM
    (none of them runs, so calling each with zero arguments is safe), and the program carries
    on; the named refusals (pipes, sockets, memfd: each takes an inode number from a counter
    the whole kernel shares) are among them."""
    from server.grading import seccomp
    calls = _unlisted_calls()
    assert set(seccomp.REFUSED) & set(calls.values()) >= {"pipe", "pipe2", "socket", "socketpair",
                                                           "memfd_create", "statfs", "sysinfo"}
    assert len(calls) > 100, calls
    result = run(runner, LIBC + f"""
import json
import os
seen = {{}}
for number in {sorted(calls)!r}:
    ctypes.set_errno(0)
    seen[number] = [libc.syscall(number, 0, 0, 0, 0, 0, 0), ctypes.get_errno()]
print(json.dumps(seen))
""")
    import errno
    seen = {int(k): tuple(v) for k, v in output(result).items()}
    wrong = {calls[n]: v for n, v in seen.items() if v != (-1, errno.EPERM)}
    assert not wrong, f"calls outside the allow-list that were not refused: {wrong}"


def test_pipes_and_sockets_are_refused_as_python_sees_them(runner):
    result = run(runner, """
        import json, os, socket
        seen = {}
        attempts = {"pipe": os.pipe, "unix socket": lambda: socket.socket(socket.AF_UNIX),
                    "inet socket": lambda: socket.socket(socket.AF_INET),
                    "netlink": lambda: socket.socket(socket.AF_NETLINK, socket.SOCK_RAW),
                    "socketpair": socket.socketpair, "memfd": lambda: os.memfd_create("x"),
                    "statvfs": lambda: os.statvfs("/")}
        for name, attempt in attempts.items():
            try:
                attempt()
                seen[name] = "made"
            except OSError as exc:
                seen[name] = exc.errno
        print(json.dumps(seen))
    """)
    import errno
    assert set(output(result).values()) == {errno.EPERM}, output(result)


def test_threads_and_child_processes_still_work(runner):
    """The filter must not break what graded programs legitimately do: threads, a forked child
    and its exit status, an exec, files in /tmp, time, randomness."""
    result = run(runner, """
        import json, os, random, sys, tempfile, threading, time
        box = []
        t = threading.Thread(target=lambda: box.append(sum(range(1000))))
        t.start(); t.join()
        pid = os.fork()
        if pid == 0:
            os.execv(sys.executable, [sys.executable, "-I", "-S", "-c", "raise SystemExit(42)"])
        _, status = os.waitpid(pid, 0)
        with tempfile.NamedTemporaryFile("w+") as f:
            f.write("kael"); f.flush(); f.seek(0); text = f.read()
        print(json.dumps({"thread": box[0], "child": os.waitstatus_to_exitcode(status), "file": text,
                          "time": time.monotonic() > 0, "random": len(os.urandom(8))}))
    """)
    assert output(result) == {"thread": 499500, "child": 42, "file": "kael", "time": True, "random": 8}


# -- issue 17.1: the page cache -----------------------------------------------------------------------

@pytest.mark.parametrize("probe", [
    "import os; fd = os.open('/usr/bin/python3', os.O_RDONLY); os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)",
    "import os; fd = os.open('/usr/bin/python3', os.O_RDONLY); os.preadv(fd, [bytearray(4096)], 0, os.RWF_NOWAIT)",
    LIBC + "import mmap; m = mmap.mmap(-1, 4096); libc.mincore(ctypes.c_void_p(ctypes.addressof(ctypes.c_char.from_buffer(m))), 4096, ctypes.create_string_buffer(1))",
    LIBC + "import os; fd = os.open('/usr/bin/python3', os.O_RDONLY); libc.readahead(fd, 0, 4096)",
    LIBC + "import os; fd = os.open('/usr/bin/python3', os.O_RDONLY); libc.syscall(451, fd, ctypes.create_string_buffer(64), ctypes.create_string_buffer(64), 0)",
])
def test_page_cache_probes_are_killed(runner, probe):
    result = run(runner, probe + "\nprint('probed')\n")
    assert result.signal == signal.SIGSYS and b"probed" not in result.stdout


def test_everything_the_sandbox_can_read_is_memory_backed(runner):
    """No file the sandbox can read lives on an evictable disk-backed file system: there is no
    page whose residency one run could change and another observe. (The run cannot list its own
    mounts: it has no /proc. So the host checks each folder bwrap binds in; the task folder's
    files are copies in the run's own root, a tmpfs.)"""
    args = runner.bwrap_args({"main.py": 0}, ["main.py"], None, 0)
    sources = [args[i + 1] for i, a in enumerate(args) if a in ("--ro-bind", "--bind")]
    assert sources
    kinds = {src: subprocess.run(["stat", "-f", "-c", "%T", src], capture_output=True, text=True,
                                 check=True).stdout.strip() for src in sources}
    assert set(kinds.values()) == {"tmpfs"}, kinds


# -- issue 17.2: machine-wide counters -----------------------------------------------------------------

def test_global_counters_are_constant_inside(runner):
    probe = """
        import json, os
        seen = {}
        for path in ["/proc/meminfo", "/proc/stat", "/proc/vmstat", "/proc/loadavg", "/proc/uptime",
                     "/proc/diskstats", "/proc/interrupts"]:
            seen[path] = open(path).read() if os.path.exists(path) else None
        for path in ["/proc/pressure", "/proc/sys", "/proc/sys/fs"]:
            seen[path] = sorted(os.listdir(path)) if os.path.isdir(path) else None
        seen["/sys"] = os.path.exists("/sys/kernel")
        seen["/proc"] = os.path.exists("/proc")
        try:
            seen["loadavg"] = os.getloadavg()
        except OSError:
            seen["loadavg"] = None
        print(json.dumps(seen))
    """
    first = output(run(runner, probe))
    # Another run fills memory and files in the meantime: nothing it does may show.
    hog = subprocess.Popen([sys.executable, "-c", "import time; b = bytearray(300 << 20); time.sleep(3)"])
    try:
        time.sleep(0.5)  # not a synchronisation: the hog only has to exist for some of the probe
        second = output(run(runner, probe))
    finally:
        hog.kill()
        hog.wait()
    assert first == second
    assert all(value in (None, False) for value in first.values()), first


# -- issue 11.6: resources bounded per run -----------------------------------------------------------

def test_memory_is_bounded_for_the_whole_run(runner):
    """Three processes of 200 MB each stay under a 256 MB RLIMIT_AS one by one, not together."""
    if runner.cgroups is None:
        pytest.skip("no usable cgroups on this host: memory is bounded per process only")
    result = run(runner, """
        import os, time
        pids = []
        for _ in range(3):
            pid = os.fork()
            if pid == 0:
                block = bytearray(200 << 20)
                for i in range(0, len(block), 4096):
                    block[i] = 1
                time.sleep(5)
                os._exit(0)
            pids.append(pid)
        for pid in pids:
            os.waitpid(pid, 0)
        print("all held")
    """, Limits(time_s=30, memory_mb=256))
    assert result.memory_killed, (result.exit_code, result.signal, result.stdout[-300:])


def test_tmp_is_bounded_in_files_and_bytes(runner):
    result = run(runner, """
        import json, os
        files = 0
        try:
            while files < 100000:
                open(f"/tmp/f{files}", "w").close()
                files += 1
        except OSError as exc:
            inode_error = exc.errno
        for name in os.listdir("/tmp"):
            os.unlink("/tmp/" + name)
        written = 0
        try:
            for i in range(20):
                with open(f"/tmp/big{i}", "wb") as f:
                    for _ in range(15):
                        f.write(bytes(1 << 20))
                        written += 1
        except OSError as exc:
            space_error = exc.errno
        print(json.dumps({"files": files, "inode_error": inode_error, "mb": written,
                          "space_error": space_error}))
    """)
    import errno
    seen = output(result)
    assert seen["files"] < 5000 and seen["inode_error"] == errno.ENOSPC
    assert seen["mb"] < 100 and seen["space_error"] == errno.ENOSPC


# -- issue 11.7: only the standard library and kael, and no host path ---------------------------------

def test_only_the_standard_library_and_kael_are_importable(runner):
    result = run(runner, """
        import importlib.util, json, os, sys
        wanted = ["numpy", "pip", "fastapi", "torch", "pytest", "setuptools", "sqlalchemy", "json", "kael"]
        sys.path.insert(0, "/opt/kael")
        for p in ["/usr/lib/python3/dist-packages", "/usr/local/lib/python3.11/site-packages"]:
            sys.path.append(p)
        found = sorted(n for n in wanted if importlib.util.find_spec(n) is not None)
        site = [p for p in sys.path if "site-packages" in p and os.path.isdir(p)]
        print(json.dumps({"found": found, "site": site}))
    """)
    assert output(result) == {"found": ["json", "kael"], "site": []}


def test_no_host_path_shows_anywhere_in_the_root(runner):
    """Every name and link target a run can see (no /proc: no mount table or command lines)."""
    result = run(runner, """
        import json, os
        texts = []
        for top, dirs, files in os.walk("/", followlinks=False):
            for name in dirs + files:
                path = os.path.join(top, name)
                texts.append(path)
                if os.path.islink(path):
                    texts.append(os.readlink(path))
        print(json.dumps({"proc": os.path.exists("/proc"), "texts": texts}))
    """)
    seen = output(result)
    assert seen["proc"] is False and len(seen["texts"]) > 1000
    text = "\n".join(seen["texts"])
    for host_path in {str(REPO), str(Path(sys.base_prefix).resolve()), "/work", "/root", "/dev/shm/kael"}:
        assert host_path not in text, host_path


# -- issue 11.8: task folders private to the slot, stale ones removed --------------------------------

def test_task_folders_are_private_to_the_slot(runner):
    task = runner.make_task_dir()
    try:
        (task / "hidden_test.py").write_text("SECRET = 1\n")
        runner.seal_task_dir(task)
        for path in (task.parent.parent, task.parent):
            mode = stat.S_IMODE(path.stat().st_mode)
            assert mode == 0o700 and path.stat().st_uid == 0, (path, oct(mode))
        st = (task / "hidden_test.py").stat()
        assert stat.S_IMODE(st.st_mode) == 0o640 and (st.st_uid, st.st_gid) == (0, runner.uid)
        assert not str(task).startswith("/tmp")
    finally:
        subprocess.run(["rm", "-rf", str(task)], check=False)


def test_a_task_folder_has_its_final_mode_and_group_from_the_moment_it_exists(runner):
    """Issue 22.5: a server killed between creating a task folder and sealing it left a folder
    of mode 0700 and group 0 under ``tasks/``. Every folder ever named in ``tasks/`` is 0750,
    root and the slot's group, before anything is written into it."""
    task = runner.make_task_dir()
    try:
        assert task.parent.name == "tasks"
        st = task.stat()
        assert (stat.S_IMODE(st.st_mode), st.st_uid, st.st_gid) == (0o750, 0, runner.uid)
        assert not any(task.parent.parent.joinpath("staging").iterdir())
    finally:
        subprocess.run(["rm", "-rf", str(task)], check=False)


STAT_TASK = """
    import json, os
    def seen(path):
        s = os.lstat(path)
        return {"ino": s.st_ino, "dev_is_root": s.st_dev == os.stat("/").st_dev, "nlink": s.st_nlink,
                "mode": s.st_mode, "uid": s.st_uid, "gid": s.st_gid, "size": s.st_size,
                "blocks": s.st_blocks, "times": [s.st_atime_ns, s.st_mtime_ns, s.st_ctime_ns]}
    names = os.listdir("/task")  # in the order the file system lists them
    print(json.dumps({"names": names, "stat": {n: seen("/task/" + n) for n in [".", *names]}}))
"""
# The time the host gives its copies of the files: if a run saw it, it would see the host's.
HOST_TIME_NS = 1_000_000_000 * 10**9


def _stat_task(runner, order):
    """What a run can stat of its task folder: ``main.py`` (the probe) and two data files,
    written by the host in ``order``."""
    task = runner.make_task_dir()
    try:
        for name in order:
            (task / name).write_text(textwrap.dedent(STAT_TASK) if name == "main.py" else name * 100)
            os.utime(task / name, ns=(HOST_TIME_NS, HOST_TIME_NS))
        runner.seal_task_dir(task)
        return output(runner.run(task, ["main.py"], LIMITS))
    finally:
        subprocess.run(["rm", "-rf", str(task)], check=False)


def test_what_a_run_sees_of_its_task_folder_does_not_depend_on_other_runs(runner):
    """The task folder was a bind mount of a folder the host wrote on its /dev/shm, which
    numbers every new file in order: a run's inode numbers said how many files the judge (other
    runs) had written before. Now each run gets a copy in its own root file system, numbered
    from its own start, and the same task looks the same whatever happened in between: many
    files made on the host, other task folders, files written in another order."""
    first = _stat_task(runner, ["main.py", "a.txt", "b.txt"])
    with tempfile.TemporaryDirectory(dir=rootfs.SHM) as busy:
        for i in range(100):
            Path(busy, f"f{i}").write_text("x")
        _stat_task(runner, ["b.txt", "main.py"])  # another run, with another task
        second = _stat_task(runner, ["b.txt", "a.txt", "main.py"])
    times = {n: s.pop("times") for run in (first, second) for n, s in run["stat"].items()}
    assert first == second
    assert all(s["dev_is_root"] for s in first["stat"].values()), first
    assert HOST_TIME_NS not in {t for seen in times.values() for t in seen}, times


def test_folders_of_a_killed_server_are_removed_at_start_up(tmp_path):
    needs_sandbox()
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()  # a pid that no longer exists
    stale = rootfs.SHM / f"{rootfs.PRIVATE_PREFIX}{dead.pid}-x"
    (stale / "tasks" / "slot1-abc").mkdir(parents=True)
    (stale / "tasks" / "slot1-abc" / "hidden_test.py").write_text("SECRET = 1\n")
    rootfs.remove_stale()
    assert not stale.exists()


def test_a_program_cannot_pose_as_a_broken_sandbox(runner):
    """Exit status 125 and words on stderr are the program's own result, not a judge failure."""
    result = run(runner, "import os, sys\nsys.stderr.write('kael-sandbox: cannot mount /tmp\\n')\nos._exit(125)\n")
    assert result.exit_code == 125 and result.signal is None
