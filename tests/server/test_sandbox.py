"""The sandboxed runner on its own: what the child sees, the limits, and the self-test."""

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import replace

import pytest
from _support import needs_sandbox, uid_base, sandbox_processes

from server.core.config import REPO
from server.grading.harness import Limits
from server.core.config import load_settings
from server.grading.sandbox import SandboxError, SandboxRunner, self_test
from server.grading.runners import make_runner_factory


@pytest.fixture
def runner():
    needs_sandbox()
    return make_runner_factory(replace(load_settings(), sandbox_uid_base=uid_base()))(0)


def assert_gone(uid):
    """No process of the sandbox's uid is left (the pid namespace dies within moments)."""
    deadline = time.monotonic() + 5
    while left := sandbox_processes(uid, 1):
        assert time.monotonic() < deadline, left
        time.sleep(0.01)


def run(runner, tmp_path, source, limits=Limits(time_s=10, memory_mb=256), stdin=b""):
    os.chmod(tmp_path, 0o755)
    (tmp_path / "main.py").write_text(source)
    os.chmod(tmp_path / "main.py", 0o644)
    return runner.run(tmp_path, ["main.py"], limits, stdin=stdin)


def test_self_test_passes(runner):
    report = self_test(runner, [str(REPO), "/etc/shadow"])
    assert report["uid"] == runner.uid
    assert report["visible"] == []


def test_self_test_catches_a_sandbox_that_does_not_drop_privileges(runner):
    class Leaky(SandboxRunner):
        def bwrap_args(self, *args, **kwargs):
            cmd = super().bwrap_args(*args, **kwargs)
            at = cmd.index("/usr/bin/setpriv")
            return cmd[:at] + cmd[cmd.index("--", at) + 1:]  # no setpriv: still root

    leaky = Leaky(uid=runner.uid, root=runner.root, private=runner.private, cgroups=runner.cgroups)
    with pytest.raises(SandboxError, match="runs as uid 0"):
        self_test(leaky, [])


def test_the_root_is_an_allow_list_without_proc_checked_by_the_self_test(runner):
    """Issue 22.2 made /proc an allow-list; now there is none. Its process folders take inode
    numbers from the kernel's one shared counter, and its machine-wide files move with what other
    runs do. The root holds exactly rootfs.ROOT_ENTRIES, and the self-test says so."""
    from server.grading import rootfs

    report = self_test(runner, [])
    assert set(report["root"]) == rootfs.ROOT_ENTRIES
    assert report["seccomp"] == 2


@pytest.mark.parametrize("mount", [["--proc", "/proc"], ["--ro-bind", "/etc", "/etc"]])
def test_the_self_test_fails_when_the_root_holds_one_more_entry(runner, mount):
    class Leaky(type(runner)):
        def bwrap_args(self, *a, **kw):
            args = super().bwrap_args(*a, **kw)
            at = args.index("--chdir")
            return args[:at] + mount + args[at:]

    leaky = Leaky(uid=runner.uid, root=runner.root, private=runner.private, cgroups=runner.cgroups)
    with pytest.raises(SandboxError, match=f"the root is not the allow-list: it holds {mount[-1]}"):
        self_test(leaky, [])


def test_the_self_test_fails_when_the_task_folder_is_a_host_folder(runner):
    """A host folder bound at /task shows inode numbers of the host's /dev/shm, which count every
    file made there before (other runs' task folders): the run must get its own copy."""
    from server.grading.sandbox import PROBE

    host = runner.make_task_dir()
    (host / "probe.py").write_text(PROBE)
    runner.seal_task_dir(host)

    class Bound(type(runner)):
        def bwrap_args(self, *a, **kw):
            args = super().bwrap_args(*a, **kw)
            at = args.index("--remount-ro")
            return args[:at] + ["--ro-bind", str(host), "/task"] + args[at:]

    bound = Bound(uid=runner.uid, root=runner.root, private=runner.private, cgroups=runner.cgroups)
    try:
        with pytest.raises(SandboxError, match="/task is not a copy in the run's own root"):
            self_test(bound, [])
    finally:
        shutil.rmtree(host, ignore_errors=True)


@pytest.mark.parametrize("make, message", [
    (lambda p: (p / "sub").mkdir(), "sub is not a regular file"),
    (lambda p: (p / "link").symlink_to(p / "main.py"), "cannot open link"),
    (lambda p: (p / "big").write_bytes(bytes(2048)), "big has 2048 bytes, more than the run's file size limit (1024)"),
])
def test_a_task_folder_with_more_than_small_files_is_a_judge_error(tmp_path, make, message):
    """The sandbox gets copies of the task folder's files; anything the copy would lose or bwrap
    could not write is said, not run (and no descriptor is left open)."""
    from server.grading.sandbox import open_task_files

    (tmp_path / "main.py").write_text("pass\n")
    make(tmp_path)
    before = len(os.listdir("/proc/self/fd"))
    with pytest.raises(SandboxError, match=re.escape(message)):
        open_task_files(tmp_path, 1024)
    assert len(os.listdir("/proc/self/fd")) == before


def test_self_test_catches_a_visible_host_path(runner, tmp_path):
    with pytest.raises(SandboxError, match="sees host paths /usr/bin"):
        self_test(runner, ["/usr/bin"])


def test_child_sees_only_its_arguments_stdin_and_environment(runner, tmp_path):
    result = run(runner, tmp_path, """
import json, os, sys
print(json.dumps({"argv": sys.argv, "stdin": sys.stdin.read(), "env": dict(os.environ),
                  "cwd": os.getcwd(), "root": sorted(os.listdir("/")), "flags": sys.flags.isolated,
                  "site": "site" in sys.modules}))
""", stdin=b"nonce\n")
    seen = json.loads(result.stdout)
    assert seen["argv"] == ["/task/main.py", "--sys-path", "/opt/kael"]
    assert seen["stdin"] == "nonce\n"
    assert seen["env"]["KAEL_BACKEND"] == "python" and "KAEL_DATA_DIR" not in seen["env"]
    assert seen["cwd"] == "/tmp"
    assert seen["root"] == ["bin", "dev", "lib", "lib64", "opt", "task", "tmp", "usr"]
    assert seen["flags"] == 1 and seen["site"] is False
    assert result.exit_code == 0 and result.signal is None


def test_wall_clock_deadline_kills_everything(runner, tmp_path):
    result = run(runner, tmp_path, "import time\ntime.sleep(60)\n", Limits(time_s=1, memory_mb=256))
    assert result.timed_out is True and result.limit == "wall"
    assert result.duration_s < 30  # a bound against hanging, not a speed claim
    assert_gone(runner.uid)


def test_cpu_limit_counts_as_timed_out(runner, tmp_path):
    result = run(runner, tmp_path, "while True:\n    pass\n", Limits(time_s=20, cpu_s=1, memory_mb=256))
    assert result.timed_out is True and result.limit == "cpu"
    assert result.signal in (signal.SIGXCPU, signal.SIGKILL)


def needs_cpu_counting(runner):
    if runner.cgroups is None or (runner.cgroups.version == 1 and runner.cgroups.cpu_base is None):
        pytest.skip("this host gives the judge no cgroup that counts CPU time")


def test_a_program_ignoring_sigxcpu_in_the_sandbox_is_a_time_limit_not_the_memory_killer(runner, tmp_path):
    """The hard CPU limit's SIGKILL, seen through bwrap: the CPU time the run used (its waited-for
    descendants included) says it was the time limit."""
    needs_cpu_counting(runner)
    result = run(runner, tmp_path, "import signal\nsignal.signal(signal.SIGXCPU, signal.SIG_IGN)\n"
                 "while True:\n    pass\n", Limits(time_s=60, cpu_s=1, memory_mb=256))
    assert result.timed_out is True and result.cpu_s >= 1
    assert not result.memory_killed


def test_the_cpu_budget_is_the_whole_runs_not_each_processes(runner, tmp_path):
    """RLIMIT_CPU gives every process its own budget: four busy processes would use four times
    the run's. The run's cgroup counts them together, and the run stops once they used it."""
    needs_cpu_counting(runner)
    result = run(runner, tmp_path, "import os\nfor _ in range(3):\n    if os.fork() == 0:\n        break\n"
                 "while True:\n    pass\n", Limits(time_s=120, cpu_s=2, memory_mb=256))
    assert result.timed_out is True and result.limit == "cpu"
    assert 2 <= result.cpu_s < 6, result.cpu_s  # 8 s if each process had only its own RLIMIT_CPU
    assert_gone(runner.uid)


def test_time_spent_waiting_for_a_cpu_moves_the_sandboxs_wall_deadline(runner, tmp_path):
    """The run's threads (its cgroup lists them) waited for a CPU shared with two busy processes:
    that wait moves its wall deadline, so 0.75 s of CPU finishes though it needs more than the
    1 s deadline by the clock. The run inherits this thread's CPU affinity, pinned for it."""
    needs_cpu_counting(runner)
    cpu = sorted(os.sched_getaffinity(0))[0]
    before = os.sched_getaffinity(0)
    burners = [subprocess.Popen([sys.executable, "-c", f"import os\nos.sched_setaffinity(0, {{{cpu}}})\n"
                                 "while True:\n    pass\n"], start_new_session=True) for _ in range(2)]
    os.sched_setaffinity(0, {cpu})
    try:
        result = run(runner, tmp_path, "import time\nt = time.process_time()\n"
                     "while time.process_time() - t < 0.75:\n    pass\n", Limits(time_s=1, cpu_s=5, memory_mb=256))
    finally:
        os.sched_setaffinity(0, before)
        for p in burners:
            p.kill()
            p.wait()
    assert result.exit_code == 0 and not result.timed_out, result
    assert result.duration_s > 1 and result.waited_s > 0.5, result  # the deadline did move


def test_memory_limit_raises_memory_error(runner, tmp_path):
    result = run(runner, tmp_path, "x = bytearray(1024 ** 3)\n")
    assert result.exit_code == 1
    assert b"MemoryError" in result.stderr


def test_file_size_limit(runner, tmp_path):
    result = run(runner, tmp_path, """
try:
    with open("/tmp/big", "wb") as f:
        f.write(b"x" * (64 * 1024 * 1024))
except OSError as exc:
    print("refused", exc.errno)
""", replace(Limits(time_s=10, memory_mb=256), file_bytes=1024 * 1024))
    assert result.stdout.startswith(b"refused") or result.signal == signal.SIGXFSZ


def test_process_limit(runner, tmp_path):
    result = run(runner, tmp_path, """
import os, time
children = 0
for _ in range(50):
    try:
        if os.fork() == 0:
            time.sleep(30)
            os._exit(0)
        children += 1
    except OSError:
        break
print(children, flush=True)
os._exit(0)
""")
    assert 0 < int(result.stdout) < 16
    assert_gone(runner.uid)  # the sleeping children went with the sandbox


def test_output_flood_is_cut_and_stopped(runner, tmp_path):
    result = run(runner, tmp_path, "import os\nwhile True:\n    os.write(1, b'x' * 65536)\n",
                 replace(Limits(time_s=20, memory_mb=256), output_bytes=100_000))
    assert result.output_truncated is True
    assert len(result.stdout) == 100_000
    assert result.timed_out is False and result.signal is None


def test_exit_status_and_signals_come_through(runner, tmp_path):
    assert run(runner, tmp_path, "raise SystemExit(3)\n").exit_code == 3
    killed = run(runner, tmp_path, "import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)\n")
    assert (killed.exit_code, killed.signal) == (None, signal.SIGSEGV)


def test_cancel_kills_a_run_in_progress(runner, tmp_path):
    import threading

    box = {}
    thread = threading.Thread(target=lambda: box.setdefault("r", run(runner, tmp_path, "import time\ntime.sleep(60)\n", Limits(time_s=60, memory_mb=256))))
    thread.start()
    deadline = time.monotonic() + 20
    while not runner._running:
        assert time.monotonic() < deadline
        time.sleep(0.01)
    runner.cancel()
    thread.join(30)
    assert box["r"].signal == signal.SIGKILL
