"""Differential test of modules and optimizers against PyTorch (issue 23): ``torchdiff_nn``'s
seeded programs (a random model, loss, optimizer, scheduler, clipping, hooks, casts and
training steps) run in kael and in PyTorch and are compared after every statement. Skipped
when PyTorch is absent. ``python tests/kael/torchdiff_nn.py N --first-seed S`` runs others."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

import kael  # noqa: E402

from torchdiff import summarize, unexplained  # noqa: E402  (tests/kael is on sys.path)
from torchdiff_nn import run_many_nn  # noqa: E402

PROGRAMS = 60  # per backend lane
CHUNKS = 3


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_module_and_optimizer_programs_behave_as_in_pytorch(chunk):
    size = PROGRAMS // CHUNKS
    seeds = range(chunk * size, (chunk + 1) * size)
    differences = run_many_nn(seeds, kael, torch)
    bad = unexplained(differences)
    assert not bad, summarize(len(seeds), bad, show=3)
