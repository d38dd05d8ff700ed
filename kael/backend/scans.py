"""Kernels along one dim, for both backends: running sums and products, and stable sorting.

Written against the ``Backend`` interface (permute, copy, flat, from_flat), with numpy's own
routines when the backend is numpy. Each works on the last dim of a permuted copy and puts the
dim back, so the pure-Python code only ever sees flat rows.

Running sums and products accumulate in float64 and round each result to the array's dtype,
as PyTorch's CPU kernels do (its accumulate type for float32 is double). Sorting puts NaN after
every number, as PyTorch does, and keeps equal elements in their order (stable)."""

from __future__ import annotations

import itertools
import operator

from .. import dtype as dt

__all__ = ["cumulative", "argsort"]


def _moved(B, a, dim):
    """(rows as lists, their length, the permutation that moved ``dim`` last)."""
    n = len(B.shape(a))
    perm = tuple(d for d in range(n) if d != dim) + (dim,)
    moved = B.copy(B.permute(a, perm))
    length = B.shape(a)[dim] if n else 1
    flat = B.flat(moved)
    rows = [flat[i:i + length] for i in range(0, len(flat), length)] if length else []
    return rows, length, perm, B.shape(moved)


def _restore(B, rows, shape, perm, dtype):
    out = B.from_flat([v for row in rows for v in row], shape, dtype)
    inverse = [0] * len(perm)
    for i, d in enumerate(perm):
        inverse[d] = i
    return B.copy(B.permute(out, tuple(inverse)))


def cumulative(B, op: str, a, dim: int, dtype):
    """Running ``"sum"`` or ``"prod"`` of ``a`` along ``dim``, as ``dtype`` (bool counts as int64)."""
    if not B.shape(a):
        return B.astype(a, dtype)
    if B.name == "numpy":
        import numpy as np

        acc = np.float64 if dtype.is_floating_point else np.int64
        fn = np.cumsum if op == "sum" else np.cumprod
        return B.astype(fn(a, axis=dim, dtype=acc), dtype)
    rows, _, perm, shape = _moved(B, a, dim)
    step = operator.add if op == "sum" else operator.mul
    cast = float if dtype.is_floating_point else int
    rows = [list(itertools.accumulate(map(cast, row), step)) for row in rows]
    return _restore(B, rows, shape, perm, dtype)


def argsort(B, a, dim: int, descending: bool):
    """Indices (int64) that sort ``a`` along ``dim``, stably, NaN last (first when descending)."""
    if B.name == "numpy":
        import numpy as np

        if not descending:
            return np.ascontiguousarray(np.argsort(a, axis=dim, kind="stable").astype(np.int64))
        n = a.shape[dim] if a.ndim else 1
        flipped = np.flip(a, axis=dim) if a.ndim else a
        order = np.argsort(flipped, axis=dim, kind="stable")
        return np.ascontiguousarray((n - 1 - np.flip(order, axis=dim)).astype(np.int64))
    if not B.shape(a):
        return B.full((), 0, dt.int64)
    rows, length, perm, shape = _moved(B, a, dim)

    def key(v):
        return (True, 0.0) if v != v else (False, v)

    rows = [sorted(range(length), key=lambda i, r=row: key(r[i]), reverse=descending) for row in rows]
    return _restore(B, rows, shape, perm, dt.int64)

