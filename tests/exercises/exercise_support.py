"""What the exercise tests share: the harness on sys.path, and the list of submissions to grade."""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXERCISES = ROOT / "exercises"
if str(EXERCISES) not in sys.path:
    sys.path.insert(0, str(EXERCISES))

from harness import catalog  # noqa: E402

WORKERS = max(2, min(6, (os.cpu_count() or 2) * 2))
JUDGE = EXERCISES / "judge.py"


def submissions():
    """``(exercise id, kind, name, source)`` for every reference, starter, mutant and variant
    (a correct solution written differently)."""
    rows = []
    for e in catalog.load_all():
        rows.append((e.id, "reference", "reference", e.reference_source()))
        rows.append((e.id, "starter", "starter", e.starter()))
        for name, source in e.mutants().items():
            rows.append((e.id, "mutant", name, source))
        for name, source in e.variants().items():
            rows.append((e.id, "variant", name, source))
    return rows


SUBMISSIONS = submissions()
