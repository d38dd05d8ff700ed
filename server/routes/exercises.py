import difflib
import logging
from pathlib import Path

from fastapi import APIRouter, HTTPException

from server.deps import SettingsDep
from server.grading.harness import Exercise, UnknownExercise, catalog
from server.models import ExercisePublic, ExercisesPublic

log = logging.getLogger("kael.server")

router = APIRouter(prefix="/exercises", tags=["exercises"])


def load_exercises(root: Path) -> list[Exercise]:
    """Every exercise under ``root`` in number order; a folder whose metadata does not load is
    left out (and logged) rather than taking the whole list down."""
    found = []
    try:
        folders = sorted(p for p in root.iterdir() if (p / ".meta" / "config.json").is_file())
    except OSError:
        return []
    for folder in folders:
        try:
            exercise = catalog.load(folder)
            exercise.id, exercise.number  # noqa: B018 (the fields every listing needs)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            log.warning("skipping exercise folder %s: %s", folder.name, exc)
            continue
        found.append(exercise)
    return sorted(found, key=lambda e: e.number)


def lookup_exercise(wanted: str, root: Path) -> Exercise:
    """By id, folder name or number, as ``judge.py`` does; ``UnknownExercise`` lists close ids."""
    exercises = load_exercises(root)
    for e in exercises:
        if wanted in (e.id, e.dirname) or (wanted.isdigit() and int(wanted) == e.number):
            return e
    names = [e.id for e in exercises]
    raise UnknownExercise(wanted, difflib.get_close_matches(wanted, names, n=3, cutoff=0.5))


def find_exercise(exercise_id: str, settings) -> Exercise:
    try:
        return lookup_exercise(exercise_id, settings.exercises_dir)
    except UnknownExercise as exc:
        raise HTTPException(404, detail=str(exc)) from None


@router.get("", response_model=ExercisesPublic)
def read_exercises(settings: SettingsDep):
    """Every exercise: id, number, titles, difficulty, topics."""
    data = [e.summary() for e in load_exercises(settings.exercises_dir)]
    return {"data": data, "count": len(data)}


@router.get("/{exercise_id}", response_model=ExercisePublic,
            responses={404: {"description": "unknown exercise"}})
def read_exercise(exercise_id: str, settings: SettingsDep):
    """One exercise: statements (en, zh), hints, starter and public tests; never hidden tests."""
    exercise = find_exercise(exercise_id, settings)
    try:
        return exercise.public_dict()
    except (OSError, ValueError, KeyError, SyntaxError) as exc:
        log.warning("exercise %s does not load: %s", exercise.id, exc)
        raise HTTPException(500, detail=f"exercise {exercise.id!r} is incomplete on this server") from None
