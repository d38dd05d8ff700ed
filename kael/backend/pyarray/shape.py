"""Views that only change shape and strides (view, permute, expand) and concatenation."""

from __future__ import annotations

from ... import dtype as dt
from ..errors import broadcast_error, fmt_shape
from .array import PyArray, c_strides, new, values


def view(a: PyArray, shape) -> PyArray | None:
    """A view of ``a`` with ``shape``, or ``None`` when ``a``'s strides cannot express it."""
    shape = _resolve(tuple(shape), a.size)
    if shape == a.shape:
        return PyArray(a.buf, a.shape, a.strides, a.offset, a.dtype)
    if a.contiguous or a.size == 0:  # an empty array walks no elements: any strides will do
        return PyArray(a.buf, shape, c_strides(shape), a.offset, a.dtype)
    strides = nocopy_strides(a.shape, a.strides, shape)
    if strides is None:
        return None
    return PyArray(a.buf, shape, strides, a.offset, a.dtype)


def _resolve(shape: tuple, size: int) -> tuple:
    known = 1
    for n in shape:
        if n != -1:
            known *= n
    if shape.count(-1) == 1 and known and size % known == 0:
        shape = tuple(size // known if n == -1 else n for n in shape)
        known = size
    if known != size or shape.count(-1):
        raise ValueError(f"shape {fmt_shape(shape)} is invalid for input of size {size}")
    return shape


def nocopy_strides(old_shape, old_strides, new_shape):
    """numpy's ``_attempt_nocopy_reshape`` (C order): the strides that let ``new_shape`` walk the
    same elements in the same order, or ``None``. Groups of old dims that multiply to groups of
    new dims must each be contiguous among themselves. Needs a non-empty array."""
    old = [(n, st) for n, st in zip(old_shape, old_strides) if n != 1]
    olddims = [n for n, _ in old]
    oldstrides = [st for _, st in old]
    newnd, oldnd = len(new_shape), len(olddims)
    newstrides = [0] * newnd
    oi, oj, ni, nj = 0, 1, 0, 1
    while ni < newnd and oi < oldnd:
        np_, op = new_shape[ni], olddims[oi]
        while np_ != op:
            if np_ < op:
                np_ *= new_shape[nj]
                nj += 1
            else:
                op *= olddims[oj]
                oj += 1
        for ok in range(oi, oj - 1):
            if oldstrides[ok] != olddims[ok + 1] * oldstrides[ok + 1]:
                return None
        newstrides[nj - 1] = oldstrides[oj - 1]
        for nk in range(nj - 1, ni, -1):
            newstrides[nk - 1] = newstrides[nk] * new_shape[nk]
        ni, nj = nj, nj + 1
        oi, oj = oj, oj + 1
    last = newstrides[ni - 1] if ni >= 1 else 1
    for nk in range(ni, newnd):
        newstrides[nk] = last
    return tuple(newstrides)


def permute(a: PyArray, dims) -> PyArray:
    if sorted(dims) != list(range(len(a.shape))):
        raise ValueError(f"permute: dims {list(dims)} do not match a tensor of dimension {len(a.shape)}")
    return PyArray(
        a.buf, tuple(a.shape[d] for d in dims), tuple(a.strides[d] for d in dims), a.offset, a.dtype
    )


def expand(a: PyArray, shape) -> PyArray:
    """numpy's ``broadcast_to``: new leading dims and size-1 dims get stride 0."""
    shape = tuple(shape)
    lead = len(shape) - len(a.shape)
    if lead < 0:
        raise broadcast_error(a.shape, shape)
    strides = [0] * lead
    for n, m, st in zip(shape[lead:], a.shape, a.strides):
        if m == 1:
            strides.append(0)
        elif m == n:
            strides.append(st)
        else:
            raise broadcast_error(a.shape, shape)
    return PyArray(a.buf, shape, tuple(strides), a.offset, a.dtype)


def concat(arrays, dim: int) -> PyArray:
    arrays = list(arrays)
    if not arrays:
        raise ValueError("concat expects a non-empty list of tensors")
    ref = arrays[0].shape
    if not ref:
        raise ValueError("zero-dimensional tensors cannot be concatenated")
    if not 0 <= dim < len(ref):
        raise IndexError(f"dim {dim} is out of range for a tensor of dimension {len(ref)}")
    dtype = arrays[0].dtype
    for i, a in enumerate(arrays):
        if len(a.shape) != len(ref):
            raise ValueError(
                f"tensors must have the same number of dimensions: got {len(ref)} and {len(a.shape)} "
                f"for tensor number {i} in the list"
            )
        for d, (n, m) in enumerate(zip(ref, a.shape)):
            if d != dim and n != m:
                raise ValueError(
                    f"sizes of tensors must match except in dimension {dim}: expected size {n} but got "
                    f"size {m} for tensor number {i} in the list"
                )
        dtype = dt.promote_types(dtype, a.dtype)
    parts = []
    for a in arrays:
        vals = values(a)
        if a.dtype is not dtype:
            from .elementwise import cast_values

            vals = cast_values(vals, a.dtype, dtype)
        chunk = 1
        for n in a.shape[dim:]:
            chunk *= n
        parts.append((vals, chunk))
    outer = 1
    for n in ref[:dim]:
        outer *= n
    out = []
    if outer == 1:
        for vals, _ in parts:
            out += vals
    else:
        for o in range(outer):
            for vals, chunk in parts:
                out += vals[o * chunk:(o + 1) * chunk]
    shape = ref[:dim] + (sum(a.shape[dim] for a in arrays),) + ref[dim + 1:]
    return new(out, shape, dtype)
