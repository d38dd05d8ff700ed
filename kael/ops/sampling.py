"""``multinomial``: draw category indices with probabilities proportional to the weights given,
from kael's seeded generator (the same seed gives the same draws on both backends; the numbers
differ from PyTorch's, whose generator is another one)."""

from __future__ import annotations

import bisect
import itertools
import math

from .. import dtype as dt
from ..random import default_generator
from ..tensor import B, Tensor, _wrap
from ._register import method

__all__ = ["multinomial"]


def _check_row(row) -> float:
    if any(not math.isfinite(w) or w < 0 for w in row):
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    total = math.fsum(row)
    if total <= 0:
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    return total


def _draw(row, n: int, replacement: bool, rng) -> list:
    """``n`` indices from the weights ``row``: each a uniform draw looked up in the running sum."""
    row = list(row)
    out = []
    for _ in range(n):
        cumulative = list(itertools.accumulate(row))
        total = cumulative[-1]
        if total <= 0:  # without replacement, only zero weights are left
            raise RuntimeError("invalid multinomial distribution (with replacement=False, not enough non-negative category to sample)")
        u = rng.uniform(1)[0] * total
        i = min(bisect.bisect_right(cumulative, u), len(row) - 1)
        while row[i] == 0:  # never land on a zero weight at a boundary
            i -= 1
        out.append(i)
        if not replacement:
            row[i] = 0.0
    return out


def multinomial(input: Tensor, num_samples: int, replacement: bool = False, *, generator=None) -> Tensor:
    """int64 indices of shape [num_samples] (or [rows, num_samples] for a 2-D ``input``), each
    row drawn with probabilities proportional to that row of ``input``."""
    if input.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: {input.dtype.name}")
    n = input.shape[-1]
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    if not replacement and num_samples > n:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    rng = generator or default_generator
    rows = input.detach().reshape(-1, n).tolist()
    out = []
    for row in rows:
        _check_row(row)
        out.extend(_draw(row, num_samples, replacement, rng))
    shape = (num_samples,) if input.ndim == 1 else (len(rows), num_samples)
    return _wrap(B.from_flat(out, shape, dt.int64))


# Tensor methods of these ops (kael/ops/_register.py)
method(multinomial)
