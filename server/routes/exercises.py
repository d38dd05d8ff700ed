import logging

from fastapi import APIRouter, HTTPException, Path

from server.catalog import Catalog, catalog_for
from server.deps import SettingsDep
from server.grading.harness import Exercise, UnknownExercise
from server.models import ExercisePublic, ExercisesPublic

log = logging.getLogger("kael.server")

router = APIRouter(prefix="/exercises", tags=["exercises"])


def find_exercise(exercise_id: str, settings) -> tuple[Catalog, Exercise]:
    """The exercise by id, folder name or number, or a 404 naming it (and close ids)."""
    exercises = catalog_for(settings.exercises_dir)
    try:
        return exercises, exercises.find(exercise_id)
    except UnknownExercise as exc:
        raise HTTPException(404, detail=str(exc)) from None


@router.get("", response_model=ExercisesPublic)
def read_exercises(settings: SettingsDep):
    """Every exercise: id, number, titles, difficulty, topics."""
    data = catalog_for(settings.exercises_dir).summaries()
    return {"data": data, "count": len(data)}


@router.get("/{exercise_id}", response_model=ExercisePublic,
            responses={404: {"description": "unknown exercise"}})
def read_exercise(settings: SettingsDep,
                  exercise_id: str = Path(description="id (graph-walk), folder (01-graph-walk) "
                                                      "or number (1)")):
    """One exercise: statements (en, zh), hints, starter and public tests; never hidden tests."""
    exercises, exercise = find_exercise(exercise_id, settings)
    return exercises.public(exercise)
