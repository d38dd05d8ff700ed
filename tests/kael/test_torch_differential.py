"""Differential test against PyTorch (issue 12): seeded random programs run in kael and in
PyTorch, compared after every statement (``torchdiff.py``). Skipped when PyTorch is absent;
kael never imports it. ``make fuzz N=20000`` runs many more and prints a summary by kind.

Each commit explores new programs: the first seed is derived from the HEAD commit's hash, so a
run is the same for a given commit (``KAEL_TORCHDIFF_SEED=S`` sets it, for instance outside a
git checkout). The range is printed; a failure names its seed, and
``python tests/kael/torchdiff.py 1 --first-seed SEED`` prints that program and its difference.
"""

from __future__ import annotations

import os
import pathlib
import subprocess

import pytest

torch = pytest.importorskip("torch")

import kael  # noqa: E402

from torchdiff import run_many, summarize, unexplained  # noqa: E402  (tests/kael is on sys.path)

PROGRAMS = 240  # per backend lane; about 20 s on numpy, 30 s on the python backend here
CHUNKS = 6


def first_seed() -> int:
    """``KAEL_TORCHDIFF_SEED``, else a number derived from the HEAD commit (0 without git)."""
    if os.environ.get("KAEL_TORCHDIFF_SEED"):
        return int(os.environ["KAEL_TORCHDIFF_SEED"])
    try:
        head = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=pathlib.Path(__file__).parent, capture_output=True, text=True,
            timeout=30, check=True,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return 0
    return int(head[:7], 16) * 1000  # disjoint ranges of 1000 seeds per commit


FIRST = first_seed()


def test_seed_range_is_printed(capsys):
    with capsys.disabled():
        print(f"\ntorchdiff seeds {FIRST}..{FIRST + PROGRAMS - 1} (KAEL_TORCHDIFF_SEED={FIRST} repeats them)")


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_random_programs_behave_as_in_pytorch(chunk):
    size = PROGRAMS // CHUNKS
    seeds = range(FIRST + chunk * size, FIRST + (chunk + 1) * size)
    differences = run_many(seeds, kael, torch)
    bad = unexplained(differences)
    assert not bad, f"seeds {seeds.start}..{seeds.stop - 1}:\n" + summarize(len(seeds), bad, show=3)
