"""Reductions: sum, amax/amin, argmax/argmin over any dims.

The reduced dims are permuted to the end, so each output element's inputs are one consecutive
slice of the gathered values and a reduction is one C-level call (``sum``, ``max``) per slice.
"""

from __future__ import annotations

from ... import dtype as dt
from ..errors import fmt_shape
from .array import PyArray, elements, new
from .shape import permute

NAN = float("nan")


def _groups(a: PyArray, dims):
    """(values with each group consecutive, group length, shape of the kept dims)."""
    reduced = set(dims)
    kept = [d for d in range(len(a.shape)) if d not in reduced]
    order = kept + sorted(reduced)
    v = a if order == list(range(len(a.shape))) else permute(a, order)
    k = 1
    for d in reduced:
        k *= a.shape[d]
    return elements(v), k, tuple(a.shape[d] for d in kept)


def _out_shape(a: PyArray, dims, kept_shape, keepdim):
    if not keepdim:
        return kept_shape
    return tuple(1 if d in dims else n for d, n in enumerate(a.shape))


def _dims(a, dims):
    return tuple(range(len(a.shape))) if dims is None else tuple(dims)


def _reduce(a: PyArray, dims, fn, empty, one=None):
    """``fn`` over each group; a group of one element is that element, or ``one(values)``."""
    vals, k, kept = _groups(a, dims)
    if k == 0:
        out = empty(kept)
    elif k == 1:
        out = vals if one is None else one(vals)
    elif len(vals) == k:
        out = [fn(vals)]
    else:
        out = [fn(vals[i:i + k]) for i in range(0, len(vals), k)]
    return out, kept


def sum_over(a: PyArray, dims, keepdim: bool) -> PyArray:
    """Sum over ``dims``; bool sums as int64; an empty sum is 0."""
    dims = _dims(a, dims)
    dtype = dt.int64 if a.dtype is dt.bool_ else a.dtype
    zero = 0.0 if dtype.is_floating_point else 0
    # a sum starts at +0.0, as numpy's and PyTorch's do: the sum of a lone -0.0 is +0.0
    one = (lambda vals: [v + 0.0 for v in vals]) if dtype.is_floating_point else None
    out, kept = _reduce(a, dims, sum, lambda shape: [zero] * _size(shape), one)
    if a.dtype is dt.bool_ and out and type(out[0]) is bool:
        out = list(map(int, out))
    return new(out, _out_shape(a, dims, kept, keepdim), dtype)


def _size(shape) -> int:
    n = 1
    for s in shape:
        n *= s
    return n


def _has_nan(group) -> bool:
    # sum() is one fast pass; it is NaN only when a NaN (or +inf with -inf) is present.
    s = sum(group)
    return s != s and any(x != x for x in group)


def _nan_max(group):
    m = max(group)
    return m if m != m or not _has_nan(group) else NAN


def _nan_min(group):
    m = min(group)
    return m if m != m or not _has_nan(group) else NAN


def _empty_error(name, a, dims):
    def raise_(_shape):
        d = next(d for d in dims if a.shape[d] == 0)
        raise ValueError(
            f"{name}(): expected reduction dim {d} to have non-zero size (got shape {fmt_shape(a.shape)})"
        )

    return raise_


def _extremum(name, a, dims, keepdim, plain, with_nan):
    dims = _dims(a, dims)
    fn = with_nan if a.dtype.is_floating_point else plain
    out, kept = _reduce(a, dims, fn, _empty_error(name, a, dims))
    return new(out, _out_shape(a, dims, kept, keepdim), a.dtype)


def amax(a: PyArray, dims, keepdim: bool) -> PyArray:
    return _extremum("amax", a, dims, keepdim, max, _nan_max)


def amin(a: PyArray, dims, keepdim: bool) -> PyArray:
    return _extremum("amin", a, dims, keepdim, min, _nan_min)


def _first_nan(group):
    for i, x in enumerate(group):
        if x != x:
            return i
    return -1


def _arg(name, pick, a: PyArray, dim, keepdim: bool) -> PyArray:
    """Index of the first extreme along ``dim`` (the first NaN wins, as in numpy)."""
    if dim is None:
        vals, k, kept = elements(a), a.size, ()
        shape = (1,) * len(a.shape) if keepdim else ()
    else:
        vals, k, kept = _groups(a, (dim,))
        shape = _out_shape(a, (dim,), kept, keepdim)
    if k == 0:
        raise ValueError(f"attempt to get {name} of an empty sequence")
    floating = a.dtype.is_floating_point
    out = []
    for i in range(0, len(vals), k):
        group = vals[i:i + k]
        j = _first_nan(group) if floating and _has_nan(group) else -1
        out.append(j if j >= 0 else group.index(pick(group)))
    return new(out, shape, dt.int64)


def argmax(a: PyArray, dim, keepdim: bool) -> PyArray:
    return _arg("argmax", max, a, dim, keepdim)


def argmin(a: PyArray, dim, keepdim: bool) -> PyArray:
    return _arg("argmin", min, a, dim, keepdim)
