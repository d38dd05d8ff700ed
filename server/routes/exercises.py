from fastapi import APIRouter, HTTPException

from server.deps import SettingsDep
from server.grading.harness import UnknownExercise, catalog
from server.models import ExercisePublic, ExercisesPublic

router = APIRouter(prefix="/exercises", tags=["exercises"])


def find_exercise(exercise_id: str, settings) -> catalog.Exercise:
    """The exercise by id, folder name or number; 404 naming the id (and close ids)."""
    try:
        return catalog.find(exercise_id, settings.exercises_dir)
    except UnknownExercise as exc:
        raise HTTPException(404, detail=str(exc)) from None
    except FileNotFoundError:
        raise HTTPException(404, detail=f"unknown exercise {exercise_id!r}") from None


@router.get("", response_model=ExercisesPublic)
def read_exercises(settings: SettingsDep):
    """Every exercise: id, titles, difficulty, topics."""
    try:
        exercises = catalog.load_all(settings.exercises_dir)
    except FileNotFoundError:
        exercises = []
    data = [e.summary() for e in exercises]
    return {"data": data, "count": len(data)}


@router.get("/{exercise_id}", response_model=ExercisePublic,
            responses={404: {"description": "unknown exercise"}})
def read_exercise(exercise_id: str, settings: SettingsDep):
    """One exercise: statements (en, zh), hints, starter and public tests; never hidden tests."""
    return find_exercise(exercise_id, settings).public_dict()
