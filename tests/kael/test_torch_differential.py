"""Differential test against PyTorch (issue 12): seeded random programs run in kael and in
PyTorch, compared after every statement (``torchdiff.py``). Skipped when PyTorch is absent;
kael never imports it. ``make fuzz N=20000`` runs many more and prints a summary by kind.

A run tests the same programs every time: seeds ``FIXED_SEED`` onward, unless
``KAEL_TORCHDIFF_SEED=S`` names another first seed. New programs are explored on purpose, not
by whichever commit CI happens to check out (a seed derived from the HEAD commit made a commit
that touched no kael code fail CI on a kael bug that program found): ``make fuzz`` runs many,
and each program it finds wrong becomes a test of its own, next to the bug's fix. The range is
printed; a failure names its seed, and ``python tests/kael/torchdiff.py 1 --first-seed SEED``
prints that program and its difference.
"""

from __future__ import annotations

import os

import pytest

torch = pytest.importorskip("torch")

import kael  # noqa: E402

from torchdiff import run_many, summarize, unexplained  # noqa: E402  (tests/kael is on sys.path)

PROGRAMS = 240  # per backend lane; about 20 s on numpy, 30 s on the python backend here
CHUNKS = 6


FIXED_SEED = 0


def first_seed() -> int:
    """``KAEL_TORCHDIFF_SEED``, else ``FIXED_SEED``."""
    return int(os.environ.get("KAEL_TORCHDIFF_SEED") or FIXED_SEED)


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
