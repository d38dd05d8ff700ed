"""The pluggable runner: what the harness hands a runner, and how it reads a RunResult."""

from __future__ import annotations

import math
import os
import subprocess
import sys
from pathlib import Path

import pytest
from exercise_support import EXERCISES  # noqa: F401  (puts the harness on sys.path)

from harness import catalog
from harness.catalog import WALL_FACTOR
from harness.grade import HarnessError, grade
from harness.runner import Limits, LocalRunner, RunResult

EXERCISE = catalog.find("graph-walk")
CORRECT = EXERCISE.reference_source()


class Recording(LocalRunner):
    """The local runner, remembering what each run was given."""

    def __init__(self):
        super().__init__()
        self.calls = []

    def run(self, task_dir, argv, limits, *, stdin=b"", env=None):
        files = {p.name: p.read_text(encoding="utf-8") for p in Path(task_dir).iterdir()}
        self.calls.append({"files": files, "argv": list(argv), "limits": limits, "stdin": stdin, "env": dict(env or {})})
        return super().run(task_dir, argv, limits, stdin=stdin, env=env)


def test_task_directory_holds_no_reference_and_no_expected_values():
    runner = Recording()
    submission = CORRECT.replace("def walk(fn):", "def walk(fn):  # the learner's copy")
    grade(EXERCISE, submission, runner=runner)
    learner_runs = [c for c in runner.calls if "the learner's copy" in c["files"].get(EXERCISE.solution_file, "")]
    assert len(learner_runs) == 1
    call = learner_runs[0]
    # judge_domain.py: the hidden tests' case generators (harness/domain.py), no reference, no answer
    assert set(call["files"]) == {"child.py", "job.json", EXERCISE.solution_file, "public_test.py", "hidden_test.py",
                                  "judge_domain.py"}
    assert all(CORRECT not in text for text in call["files"].values())
    assert all(".expected" not in text or name == "public_test.py" for name, text in call["files"].items())
    assert call["argv"] == ["child.py", "job.json"]
    assert call["limits"] == EXERCISE.limits()
    assert len(call["stdin"].strip()) == 32  # the nonce


def test_public_only_writes_no_hidden_tests():
    runner = Recording()
    grade(EXERCISE, CORRECT + "\n# only public\n", runner=runner, public_only=True)
    call = next(c for c in runner.calls if "# only public" in c["files"].get(EXERCISE.solution_file, ""))
    assert "hidden_test.py" not in call["files"]


def test_a_runner_that_reports_an_oom_kill_gives_memory_limit_exceeded():
    result = RunResult(exit_code=None, signal=9, stdout=b"", stderr=b"", memory_killed=True)
    report = grade(EXERCISE, CORRECT, runner=_ReferenceThenScripted(result))
    assert report["verdict"] == "Memory Limit Exceeded"


def test_a_runner_that_reports_a_timeout_gives_time_limit_exceeded():
    result = RunResult(exit_code=None, signal=9, stdout=b"", stderr=b"", timed_out=True)
    report = grade(EXERCISE, CORRECT, runner=_ReferenceThenScripted(result))
    assert report["verdict"] == "Time Limit Exceeded"


class _ReferenceThenScripted(LocalRunner):
    """Runs the reference for real (so expected values exist), scripts the submission's run."""

    def __init__(self, result):
        super().__init__()
        self.result = result

    def run(self, task_dir, argv, limits, *, stdin=b"", env=None):
        if limits.time_s > EXERCISE.limits().time_s:  # the reference runs with 3x the time
            return super().run(task_dir, argv, limits, stdin=stdin, env=env)
        return self.result


def test_a_failing_runner_is_a_harness_error_not_a_verdict():
    class Broken:
        def run(self, *args, **kwargs):
            raise OSError("bwrap: not found")

    with pytest.raises(HarnessError, match="bwrap: not found"):
        grade(EXERCISE, CORRECT, runner=Broken(), env={"KAEL_BACKEND": "python", "X_UNCACHED": "1"})


def test_limits_come_from_the_metadata():
    """The statement's time limit is CPU time; the wall clock allows WALL_FACTOR times as much,
    so that a busy machine (other runs, other tenants) cannot turn a verdict into a time-out."""
    limits = EXERCISE.limits()
    assert limits == Limits(time_s=EXERCISE.time_limit_s * WALL_FACTOR, cpu_s=EXERCISE.time_limit_s,
                            memory_mb=EXERCISE.memory_mb)
    assert limits.cpu_seconds == math.ceil(EXERCISE.time_limit_s)


def test_cpu_seconds_round_up_never_down():
    assert Limits(time_s=9, cpu_s=2.5).cpu_seconds == 3
    assert Limits(time_s=9, cpu_s=0.2).cpu_seconds == 1
    assert Limits(time_s=4).cpu_seconds == 5  # no CPU budget given: the wall deadline comes first


def test_a_run_reports_the_cpu_time_it_used(tmp_path):
    (tmp_path / "burn.py").write_text("import time\nt = time.process_time()\nwhile time.process_time() - t < 0.3:\n    pass\n")
    result = LocalRunner().run(tmp_path, ["burn.py"], Limits(time_s=30, memory_mb=256))
    assert result.exit_code == 0 and not result.timed_out
    assert 0.3 <= result.cpu_s < 5


def test_a_program_that_ignores_sigxcpu_is_still_a_time_limit(tmp_path):
    """RLIMIT_CPU's soft limit sends SIGXCPU, which a program may ignore; the hard limit then
    kills it with SIGKILL, which alone would read as the memory killer. The CPU time it used
    tells the two apart."""
    (tmp_path / "stubborn.py").write_text(
        "import signal\nsignal.signal(signal.SIGXCPU, signal.SIG_IGN)\nwhile True:\n    pass\n")
    result = LocalRunner().run(tmp_path, ["stubborn.py"], Limits(time_s=60, cpu_s=1, memory_mb=256))
    assert result.timed_out and result.cpu_s >= 1


def test_given_data_reaches_the_submission_as_input_only():
    """two-moons' scored points are made in the reference's run from a secret seed: the
    submission's task folder holds the points, never their labels."""
    import json

    moons = catalog.find("two-moons")
    runner = Recording()
    report = grade(moons, moons.reference_source() + "\n# the learner's copy\n", runner=runner)
    assert report["verdict"] == "Accepted", report["message"]
    call = next(c for c in runner.calls if "# the learner's copy" in c["files"][moons.solution_file])
    job = json.loads(call["files"]["job.json"])
    hidden = next(g for g in job["tests"] if g["module"] == "hidden_test")
    given = hidden["given"]["test_accuracy_on_mirrored_moons"]
    assert set(given) == {"input"} and len(given["input"]) == 400
    assert "answer" not in call["files"]["job.json"] and "labels" not in call["files"]["job.json"]


_GIVEN = "def data_x():\n    return {}\n\ndef test_a(m, d):\n    '''a'''\n\ntest_a.given = 'NAME'\n"


@pytest.mark.parametrize("name,hidden", [("data_x", False), ("data_missing", True), ("test_a", True)])
def test_given_must_name_a_data_function_of_a_hidden_file(name, hidden):
    with pytest.raises(ValueError, match="given must name a function"):
        catalog.parse_cases(_GIVEN.replace("NAME", name), hidden=hidden, filename="t.py")


def test_given_names_the_data_function():
    assert catalog.parse_cases(_GIVEN.replace("NAME", "data_x"), hidden=True, filename="t.py")[0].given == "data_x"


def test_time_spent_waiting_is_not_charged_to_the_cpu_budget():
    """A run slowed by a busy machine (or waiting) past its CPU budget, but within the wall
    clock's, is graded on what it computed."""
    limits = Limits(time_s=20, cpu_s=1, memory_mb=EXERCISE.memory_mb)
    report = grade(EXERCISE, "import time\ntime.sleep(1.5)\n" + CORRECT, limits=limits, public_only=True)
    assert report["verdict"] == "Accepted", report["message"]


def test_a_program_that_used_its_cpu_budget_is_told_so():
    """The time limit that stopped the run is named: here the CPU budget, all of it used."""
    limits = Limits(time_s=30, cpu_s=1, memory_mb=EXERCISE.memory_mb)
    report = grade(EXERCISE, "while True:\n    pass\n", limits=limits, public_only=True)
    assert report["verdict"] == "Time Limit Exceeded"
    assert report["message"] == "the program used all of its 1 s of CPU time without finishing"


def test_a_program_stopped_by_the_wall_clock_is_told_it_was_waiting():
    """A program that sleeps uses no CPU: the wall clock stops it, and the message says which
    limit that was and how little CPU the program had used (a learner could not tell the two
    apart when both read "did not finish within the time limit")."""
    limits = Limits(time_s=1.5, cpu_s=5, memory_mb=EXERCISE.memory_mb)
    report = grade(EXERCISE, "import time\ntime.sleep(60)\n", limits=limits, public_only=True)
    assert report["verdict"] == "Time Limit Exceeded"
    message = report["message"]
    assert message.startswith("the program was stopped by the wall clock after "), message
    assert "s of its 5 s of CPU time" in message and "waiting" in message, message


def _burner(cpu):
    """A busy process pinned to ``cpu``, in its own session (autogroup scheduling would
    otherwise share one slice between it and the test)."""
    code = f"import os\nos.sched_setaffinity(0, {{{cpu}}})\nwhile True:\n    pass\n"
    return subprocess.Popen([sys.executable, "-c", code], start_new_session=True)


@pytest.mark.skipif(not Path("/proc/self/schedstat").exists(), reason="no per-task scheduler statistics")
def test_time_spent_waiting_for_a_cpu_moves_the_wall_deadline(tmp_path):
    """The wall clock stops programs that wait for something other than a CPU. A program that
    was runnable the whole time but shared its CPU with two busy processes needs three times its
    CPU time by the clock: that wait is added to its deadline, so it finishes (0.75 s of CPU
    against a 1 s wall deadline, at most a third of a CPU: 2.25 s or more by the clock)."""
    cpu = sorted(os.sched_getaffinity(0))[0]
    (tmp_path / "burn.py").write_text(
        f"import os, time\nos.sched_setaffinity(0, {{{cpu}}})\nt = time.process_time()\n"
        "while time.process_time() - t < 0.75:\n    pass\n")
    burners = [_burner(cpu) for _ in range(2)]
    try:
        result = LocalRunner().run(tmp_path, ["burn.py"], Limits(time_s=1, cpu_s=5, memory_mb=256))
    finally:
        for p in burners:
            p.kill()
            p.wait()
    assert result.exit_code == 0 and not result.timed_out, result
    assert result.duration_s > 1 and result.waited_s > 0.5, result  # the deadline did move
    assert result.limit is None


def test_the_wait_a_deadline_can_gain_is_bounded():
    """A run's wall deadline moves by the time it waited for a CPU, up to WAIT_FACTOR times the
    deadline: an overloaded machine cannot hold a grading slot without end."""
    from harness.runner import WAIT_FACTOR, _deadline

    limits = Limits(time_s=2, cpu_s=1)
    assert _deadline(100.0, limits, 0.0) == 102.0
    assert _deadline(100.0, limits, 3.5) == 105.5
    assert _deadline(100.0, limits, 1e9) == 102.0 + 2 * WAIT_FACTOR
