"""Export the exercises' public parts to static JSON, for the front end on static hosting.

    python web/scripts/export_exercises.py OUT_DIR

writes, in the shapes of the judge server's API (so the page reads both the same way):

    OUT_DIR/exercises.json         {"data": [summary, ...], "count": n}   (GET /api/exercises)
    OUT_DIR/exercises/<id>.json    the exercise's public dict             (GET /api/exercises/<id>)
    OUT_DIR/harness.json           {"files": [{"path", "text"}]}: the harness package, which the
                                   browser runs public tests with, in-process, and with it
                                   harness/feedback/<id>.json: mistakes.public_feedback(), the
                                   known mistakes' public outcomes and the reference's traces of
                                   the public cases (what "Run tests" names a mistake and draws a
                                   trace diff with)

Only what ``Exercise.public_dict()`` gives (metadata, statements, hints, starter, public tests)
leaves the exercises folder: never ``.meta/`` (reference solutions, hidden tests, mutants), only
the public part of what is derived from it (checked: no reference or hidden source, no hidden
case's name).
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
EXERCISES = REPO / "exercises"


def export(out: Path) -> int:
    sys.path.insert(0, str(EXERCISES))
    from harness import catalog

    folder = out / "exercises"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True, exist_ok=True)

    summaries = []
    feedback = []
    for path in sorted(EXERCISES.iterdir()) if EXERCISES.is_dir() else []:
        if not (path / ".meta" / "config.json").is_file():
            continue
        try:
            exercise = catalog.load(path)
            public = exercise.public_dict()
        except (OSError, ValueError, KeyError) as exc:  # an exercise still being written
            print(f"export_exercises: skipping {path.name}: {exc}", file=sys.stderr)
            continue
        secrets = [exercise.reference_source(), exercise.hidden_tests_source()]
        text = json.dumps(public, ensure_ascii=False)
        for secret in secrets:
            if secret.strip() and json.dumps(secret, ensure_ascii=False)[1:-1] in text:
                raise SystemExit(f"export_exercises: {exercise.id}: a .meta/ file leaked into the export")
        (folder / f"{exercise.id}.json").write_text(text, encoding="utf-8")
        summaries.append(exercise.summary())
        feedback.append({"path": f"harness/feedback/{exercise.id}.json", "text": _feedback(exercise, secrets)})
    summaries.sort(key=lambda e: e["number"])
    (out / "exercises.json").write_text(
        json.dumps({"data": summaries, "count": len(summaries)}, ensure_ascii=False), encoding="utf-8"
    )

    harness = EXERCISES / "harness"
    files = [
        {"path": f"harness/{p.relative_to(harness).as_posix()}", "text": p.read_text(encoding="utf-8")}
        for p in sorted([*harness.rglob("*.py"), harness / "verdicts.json"])  # vocabulary.py reads it
        if "__pycache__" not in p.parts
    ] + feedback
    (out / "harness.json").write_text(json.dumps({"files": files}, ensure_ascii=False), encoding="utf-8")
    return len(summaries)


def _feedback(exercise, secrets) -> str:
    """The exercise's public feedback data as JSON; refuses one that names a hidden case."""
    from harness import mistakes

    text = json.dumps(mistakes.public_feedback(exercise), ensure_ascii=False)
    hidden = [c.name for c in exercise.hidden_cases()]
    leaked = [name for name in hidden if json.dumps(name) in text]
    if leaked or any(s.strip() and json.dumps(s, ensure_ascii=False)[1:-1] in text for s in secrets):
        raise SystemExit(f"export_exercises: {exercise.id}: hidden data in the feedback ({leaked or 'a source'})")
    return text


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit("usage: export_exercises.py OUT_DIR")
    n = export(Path(sys.argv[1]))
    print(f"exported {n} exercises")
