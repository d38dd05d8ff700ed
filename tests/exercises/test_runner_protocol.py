"""The pluggable runner: what the harness hands a runner, and how it reads a RunResult."""

from __future__ import annotations

from pathlib import Path

import pytest
from exercise_support import EXERCISES  # noqa: F401  (puts the harness on sys.path)

from harness import catalog
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
    assert EXERCISE.limits() == Limits(time_s=EXERCISE.time_limit_s, memory_mb=EXERCISE.memory_mb)
    assert EXERCISE.limits().cpu_seconds == int(EXERCISE.time_limit_s + 1)


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
