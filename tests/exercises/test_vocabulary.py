"""The verdicts are named once, in exercises/harness/verdicts.json: the harness, the server's
grading and its API schema all read that file (web/src/exercises/verdicts.test.ts checks the
TypeScript side against it)."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

from harness import report, vocabulary

VOCABULARY = json.loads((Path(vocabulary.__file__).with_name("verdicts.json")).read_text(encoding="utf-8"))


def test_the_harness_names_are_the_files():
    assert report.VERDICTS == tuple(VOCABULARY["verdicts"].values())
    assert report.STATUSES == tuple(VOCABULARY["statuses"])
    for name, text in VOCABULARY["verdicts"].items():
        assert getattr(report, name) == getattr(vocabulary, name) == text


def test_the_servers_grading_and_api_schema_use_the_same_list():
    from server import models
    from server.grading import report as server_report

    for name in ("ACCEPTED", "WRONG_ANSWER", "RUNTIME_ERROR", "TIME_LIMIT", "MEMORY_LIMIT", "SYNTAX_ERROR"):
        assert getattr(server_report, name) == VOCABULARY["verdicts"][name]
    schema = models.ReportPublic.model_json_schema()["properties"]["verdict"]
    assert schema["enum"] == list(VOCABULARY["verdicts"].values())


def test_the_browser_gets_the_file_with_the_harness(tmp_path):
    """The in-browser harness is written from harness.json: vocabulary.py must load there too."""
    script = Path(__file__).resolve().parents[2] / "web" / "scripts" / "export_exercises.py"
    spec = importlib.util.spec_from_file_location("export_exercises", script)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.export(tmp_path / "data")
    files = json.loads((tmp_path / "data" / "harness.json").read_text(encoding="utf-8"))["files"]
    root = tmp_path / "pyodide"
    for f in files:
        (root / f["path"]).parent.mkdir(parents=True, exist_ok=True)
        (root / f["path"]).write_text(f["text"], encoding="utf-8")
    probe = ("import sys; sys.path.insert(0, sys.argv[1]); import harness.vocabulary as v; "
             "assert v.__file__.startswith(sys.argv[1]), v.__file__; print(v.VERDICTS)")
    done = subprocess.run([sys.executable, "-I", "-c", probe, str(root)], cwd=root, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == repr(tuple(VOCABULARY["verdicts"].values()))
