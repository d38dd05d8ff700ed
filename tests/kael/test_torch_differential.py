"""Differential test against PyTorch (issue 12): seeded random programs run in kael and in
PyTorch, compared after every statement (``torchdiff.py``). Skipped when PyTorch is absent;
kael never imports it. ``make fuzz N=20000`` runs many more and prints a summary by kind.

The seeds are fixed, so a run is the same every time: a failure names its seed, and
``python tests/kael/torchdiff.py 1 --first-seed SEED`` prints that program and its difference.
"""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

import kael  # noqa: E402

from torchdiff import run_many, summarize, unexplained  # noqa: E402  (tests/kael is on sys.path)

PROGRAMS = 240  # per backend lane; about 20 s on numpy, 30 s on the python backend here
CHUNKS = 6


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_random_programs_behave_as_in_pytorch(chunk):
    size = PROGRAMS // CHUNKS
    seeds = range(chunk * size, (chunk + 1) * size)
    differences = run_many(seeds, kael, torch)
    bad = unexplained(differences)
    assert not bad, summarize(len(seeds), bad, show=3)
