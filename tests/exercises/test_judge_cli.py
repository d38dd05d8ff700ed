"""judge.py: list, show, start, check; exit codes 0/1/2; the --json report schema."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from exercise_support import JUDGE

from harness import catalog
from harness.report import SCHEMA, VERDICTS

GRAPH_WALK = catalog.find("graph-walk")


def judge(*args, cwd=None):
    env = dict(os.environ)
    env.pop("NO_COLOR", None)
    return subprocess.run([sys.executable, str(JUDGE), *args], capture_output=True, text=True, cwd=cwd, env=env, timeout=120)


def test_list_shows_every_exercise():
    result = judge("list")
    assert result.returncode == 0
    for e in catalog.load_all():
        assert e.id in result.stdout
        assert e.difficulty in result.stdout


def test_list_json():
    result = judge("list", "--json", "--lang", "zh")
    rows = json.loads(result.stdout)
    assert [r["id"] for r in rows] == [e.id for e in catalog.load_all()]
    assert rows[0]["title"] == GRAPH_WALK.title("zh")


def test_show_in_both_languages():
    en = judge("show", "graph-walk")
    zh = judge("show", "1", "--lang", "zh")
    assert en.returncode == zh.returncode == 0
    assert "next_functions" in en.stdout and "Walk the graph" in en.stdout
    assert "遍历" in zh.stdout


def test_start_writes_the_starter(tmp_path):
    result = judge("start", "graph-walk", str(tmp_path))
    assert result.returncode == 0
    written = tmp_path / GRAPH_WALK.solution_file
    assert written.read_text(encoding="utf-8") == GRAPH_WALK.starter()
    again = judge("start", "graph-walk", str(written))
    assert again.returncode == 2 and "already exists" in again.stderr


def test_check_accepted_exits_0_without_colours_on_a_pipe():
    result = judge("check", "graph-walk", str(GRAPH_WALK.path / ".meta" / "reference.py"))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Accepted" in result.stdout
    assert "\x1b[" not in result.stdout


def test_check_starter_exits_1_and_says_what_to_implement():
    result = judge("check", "graph-walk", str(GRAPH_WALK.path / GRAPH_WALK.solution_file), "--public-only")
    assert result.returncode == 1
    assert "Runtime Error" in result.stdout
    assert "NotImplementedError: implement walk(fn)" in result.stdout


def test_check_json_schema(tmp_path):
    mutant = tmp_path / "breadth_first.py"
    mutant.write_text(GRAPH_WALK.mutants()["breadth_first"], encoding="utf-8")
    result = judge("check", "graph-walk", str(mutant), "--json")
    assert result.returncode == 1
    report = json.loads(result.stdout)
    assert set(report) == {"schema", "exercise", "verdict", "message", "tests", "summary", "syntax_error",
                           "output", "public_only", "graded", "backend", "duration_ms", "mistakes", "trace_diff"}
    assert report["schema"] == SCHEMA
    assert report["verdict"] in VERDICTS and report["verdict"] == "Wrong Answer"
    assert report["exercise"] == "graph-walk"
    assert report["graded"] is True and report["public_only"] is False
    assert report["backend"] in ("numpy", "python")
    for t in report["tests"]:
        assert set(t) == {"name", "description", "status", "message", "duration_ms", "hidden"}
        assert t["status"] in ("passed", "failed", "error")
        assert isinstance(t["hidden"], bool)
    s = report["summary"]
    assert s["total"] == len(report["tests"]) == s["passed"] + s["failed"] + s["error"]


def test_check_syntax_error_json(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("def walk(fn)\n    return []\n", encoding="utf-8")
    result = judge("check", "graph-walk", str(bad), "--json")
    assert result.returncode == 1
    report = json.loads(result.stdout)
    assert report["verdict"] == "Syntax Error"
    assert report["syntax_error"]["line"] == 1 and report["syntax_error"]["column"] >= 1


def test_unknown_id_exits_2_and_lists_close_ids():
    result = judge("check", "graph-wlak", "x.py")
    assert result.returncode == 2
    assert "unknown exercise 'graph-wlak'" in result.stderr
    assert "graph-walk" in result.stderr
    assert judge("show", "sumto").returncode == 2


@pytest.mark.parametrize("args", [[], ["frobnicate"], ["check", "graph-walk"], ["show"], ["show", "1", "--lang", "fr"]])
def test_usage_errors_exit_2(args):
    assert judge(*args).returncode == 2


def test_missing_file_exits_2(tmp_path):
    result = judge("check", "graph-walk", str(tmp_path / "nope.py"))
    assert result.returncode == 2
    assert "cannot read" in result.stderr


def test_colours_on_a_terminal():
    import pty

    main_fd, child_fd = pty.openpty()
    env = dict(os.environ, TERM="xterm")
    env.pop("NO_COLOR", None)
    proc = subprocess.Popen(
        [sys.executable, str(JUDGE), "check", "graph-walk", str(GRAPH_WALK.path / ".meta" / "reference.py"), "--public-only"],
        stdout=child_fd, stderr=subprocess.PIPE, env=env,
    )
    os.close(child_fd)
    chunks = []
    while True:
        try:
            data = os.read(main_fd, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    proc.wait(timeout=120)
    os.close(main_fd)
    output = b"".join(chunks).decode()
    assert proc.returncode == 0
    assert "\x1b[1;32mAccepted\x1b[0m" in output


@pytest.mark.parametrize("source", ["x = " + "-" * 20000 + "1\n", "x = " + "+1" * 200000 + "\n",
                                    "x = " + "(" * 5000 + ")" * 5000 + "\n"])
def test_code_too_deep_to_compile_is_the_learners_verdict(tmp_path, source):
    """MemoryError/RecursionError while compiling the submission: exit 1 with a verdict, not 3."""
    deep = tmp_path / "deep.py"
    deep.write_text(source, encoding="utf-8")
    result = judge("check", "graph-walk", str(deep), "--json")
    assert result.returncode == 1, result.stderr
    report = json.loads(result.stdout)
    assert report["verdict"] in ("Syntax Error", "Runtime Error"), report
    assert "Traceback" not in result.stderr
