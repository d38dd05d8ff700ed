"""The exercise catalog of the server: every exercise under the exercises folder, read once.

The routes (what the API shows) and grading (what it runs) both look exercises up here, so
neither depends on the other. ``catalog_for(root)`` reads the folder the first time it is asked
(the app asks at start-up) and keeps what it read: each ``config.json`` is read once, and each
exercise's public view (statements, starter, public tests, the names of its cases) is built once.
An exercise whose files do not load is left out and logged instead of failing every request.
"""

from __future__ import annotations

import difflib
import functools
import logging
import re
from pathlib import Path

from server.grading.harness import Exercise, UnknownExercise, catalog

log = logging.getLogger("kael.server")

# An exercise number as typed in a URL: ASCII digits only ("²".isdigit() is true, int("²") fails).
NUMBER = re.compile(r"[0-9]{1,6}")


class Catalog:
    """The exercises of one folder, in number order; look them up by id, folder name or number."""

    def __init__(self, root: Path):
        self.root = root
        self.exercises: list[Exercise] = []
        self._public: dict[str, dict] = {}
        for exercise in _load_folders(root):
            try:
                self._public[exercise.id] = exercise.public_dict()
            except (OSError, ValueError, KeyError, TypeError, SyntaxError) as exc:
                log.warning("skipping exercise %s: its public files do not load: %s", exercise.dirname, exc)
                continue
            self.exercises.append(exercise)
        self._by_name = {name: e for e in self.exercises for name in (e.id, e.dirname)}
        self._by_number = {e.number: e for e in self.exercises}

    def find(self, wanted: str) -> Exercise:
        """The exercise ``wanted`` names; ``UnknownExercise`` (listing close ids) otherwise."""
        found = self._by_name.get(wanted)
        if found is None and NUMBER.fullmatch(wanted):
            found = self._by_number.get(int(wanted))
        if found is None:
            names = [e.id for e in self.exercises]
            raise UnknownExercise(wanted, difflib.get_close_matches(wanted, names, n=3, cutoff=0.5))
        return found

    def summaries(self) -> list[dict]:
        return [e.summary() for e in self.exercises]

    def public(self, exercise: Exercise) -> dict:
        """What a learner may see of ``exercise`` (never hidden tests or the reference)."""
        return self._public[exercise.id]


def _load_folders(root: Path) -> list[Exercise]:
    try:
        folders = sorted(p for p in root.iterdir() if (p / ".meta" / "config.json").is_file())
    except OSError as exc:
        log.warning("no exercises: %s", exc)
        return []
    found, seen = [], set()
    for folder in folders:
        try:
            exercise = catalog.load(folder)
            key = (exercise.id, exercise.number)  # the fields every lookup needs
        except (OSError, ValueError, KeyError, TypeError) as exc:
            log.warning("skipping exercise folder %s: %s", folder.name, exc)
            continue
        if key[0] in seen:
            log.warning("skipping exercise folder %s: id %r is taken", folder.name, key[0])
            continue
        seen.add(key[0])
        found.append(exercise)
    return sorted(found, key=lambda e: e.number)


@functools.cache
def catalog_for(root: Path) -> Catalog:
    """The catalog of ``root``, read on first use and kept for the life of the process."""
    return Catalog(Path(root))


def lookup_exercise(wanted: str, root: Path) -> Exercise:
    """By id, folder name or number; raises ``UnknownExercise``."""
    return catalog_for(root).find(wanted)
