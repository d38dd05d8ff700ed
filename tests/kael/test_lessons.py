"""The Learn tab's lessons (web/lessons/, described in its README): every cell runs and prints
exactly its expected output, on this lane's backend; each lesson's two languages place the same
cells and ask as many questions; every exercise a lesson links to exists.

Cells marked "slow" in lesson.json (the notebook's full-size matrices) run on the numpy backend
only: in pure Python their matrix products take seconds each.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
from pathlib import Path

import pytest

import kael

ROOT = Path(__file__).resolve().parents[2]
LESSONS = ROOT / "web" / "lessons"
LANGS = ("en", "zh")
CELL_LINE = re.compile(r"^@cell (\S+)\s*$", re.M)


def lessons() -> list[Path]:
    return sorted(p for p in LESSONS.iterdir() if (p / "lesson.json").is_file())


def meta(lesson: Path) -> dict:
    return json.loads((lesson / "lesson.json").read_text(encoding="utf-8"))


def cells() -> list[tuple[str, str, dict]]:
    return [(lesson.name, name, spec) for lesson in lessons() for name, spec in meta(lesson)["cells"].items()]


def run(source: str, filename: str) -> str:
    """What the cell prints; the random generator is given back as it was (cells seed it)."""
    out = io.StringIO()
    state = kael.random.get_rng_state()
    try:
        with contextlib.redirect_stdout(out):
            exec(compile(source, filename, "exec"), {"__name__": "__main__"})
    finally:
        kael.random.set_rng_state(state)
    return out.getvalue()


def test_there_are_lessons_with_cells():
    assert len(lessons()) >= 7
    assert len(cells()) >= 20


@pytest.mark.parametrize(("lesson", "name", "spec"), cells(), ids=lambda v: v if isinstance(v, str) else "")
def test_cell_prints_its_expected_output(lesson, name, spec):
    if spec.get("slow") and kael.backend_name() != "numpy":
        pytest.skip("a full-size cell: the numpy backend runs it")
    folder = LESSONS / lesson / "cells"
    source = (folder / f"{name}.py").read_text(encoding="utf-8")
    expected = (folder / f"{name}.out").read_text(encoding="utf-8")
    got = run(source, f"{lesson}/{name}.py")
    assert got == expected, f"{lesson}/cells/{name}.py printed\n{got}\nexpected ({name}.out)\n{expected}"


@pytest.mark.parametrize(
    ("lesson", "name", "spec"),
    [c for c in cells() if c[2].get("show") and not c[2].get("slow")],
    ids=lambda v: v if isinstance(v, str) else "",
)
def test_cell_opened_in_the_editor_still_runs(lesson, name, spec):
    """The lines "open in the editor" adds to draw a cell's graph (outside the browser kael.viz
    prints them as text) run after the cell, and the cell's own output comes first."""
    folder = LESSONS / lesson / "cells"
    source = (folder / f"{name}.py").read_text(encoding="utf-8")
    got = run(f"{source}\nimport kael.viz\n{spec['show']}\n", f"{lesson}/{name}.py")
    assert got.startswith((folder / f"{name}.out").read_text(encoding="utf-8"))


@pytest.mark.parametrize("lesson", lessons(), ids=lambda p: p.name)
def test_both_languages_place_the_same_cells_and_questions(lesson):
    spec = meta(lesson)
    assert set(spec["title"]) == set(LANGS) and set(spec["summary"]) == set(LANGS)
    questions = {}
    for lang in LANGS:
        text = (lesson / f"{lang}.md").read_text(encoding="utf-8")
        head, sep, body = text.partition("\n---\n")
        assert sep, f"{lesson.name}/{lang}.md: the questions end with a line '---'"
        assert CELL_LINE.findall(body) == list(spec["cells"]), f"{lesson.name}/{lang}.md places other cells"
        qs = re.findall(r"^Q: ", head, re.M)
        assert len(qs) == len(re.findall(r"^A: ", head, re.M)) >= 2
        questions[lang] = len(qs)
    assert questions["en"] == questions["zh"]


def test_linked_exercises_exist():
    exercises = ROOT / "exercises"
    if not exercises.is_dir():
        pytest.skip("no exercises/ folder here")
    ids = {json.loads(p.read_text())["id"] for p in exercises.glob("*/.meta/config.json")}
    for lesson in lessons():
        missing = set(meta(lesson)["exercises"]) - ids
        assert not missing, f"{lesson.name} links to exercises that do not exist: {sorted(missing)}"
