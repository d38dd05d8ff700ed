"""The strided array: one flat buffer, a shape, strides and an offset (in elements), a dtype.

Buffers are ``array.array`` objects ('f' float32, 'd' float64, 'q' int64) or, for bool, a
plain list of Python bools. Views share the buffer object. Everything above this module reads
an array as a flat list of Python numbers in C order (``values``) and writes one back
(``write``); the strided walking lives only here.
"""

from __future__ import annotations

from array import array
from itertools import repeat

from ... import dtype as dt

TYPECODE = {dt.float32: "f", dt.float64: "d", dt.int64: "q"}

INT64_MIN = -(1 << 63)
_HALF = 1 << 63
_MASK = (1 << 64) - 1


class PyArray:
    """A strided view of a flat buffer; ``contiguous`` is numpy's C-contiguity flag."""

    __slots__ = ("buf", "shape", "strides", "offset", "dtype", "size", "contiguous")

    def __init__(self, buf, shape: tuple, strides: tuple, offset: int, dtype):
        self.buf = buf
        self.shape = shape
        self.strides = strides
        self.offset = offset
        self.dtype = dtype
        size = 1
        for n in shape:
            size *= n
        self.size = size
        self.contiguous = is_c_contiguous(shape, strides)

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def __repr__(self) -> str:
        return f"PyArray({tolist(self)!r}, dtype={self.dtype.name})"


def is_c_contiguous(shape, strides) -> bool:
    expected = 1
    for n, st in zip(reversed(shape), reversed(strides)):
        if n == 0:
            return True
        if n != 1:
            if st != expected:
                return False
            expected *= n
    return True


def c_strides(shape) -> tuple:
    """Row-major strides; a dim of size 0 counts as 1, as numpy does."""
    out = []
    step = 1
    for n in reversed(shape):
        out.append(step)
        step *= n or 1
    return tuple(reversed(out))


def wrap_int64(vals) -> list:
    """Python ints reduced modulo 2**64 into int64's range, as numpy's int64 arithmetic wraps."""
    return [((v + _HALF) & _MASK) - _HALF for v in vals]


def make_buffer(vals, dtype):
    """A new buffer holding ``vals``, an iterable of Python numbers of ``dtype``'s kind."""
    if dtype is dt.bool_:
        return list(vals)
    code = TYPECODE[dtype]
    if code != "q":
        return array(code, vals)
    try:
        return array("q", vals)
    except OverflowError:
        return array("q", wrap_int64(vals))


def new(vals, shape: tuple, dtype) -> PyArray:
    """A contiguous array owning a buffer made from the flat list ``vals``."""
    return PyArray(make_buffer(vals, dtype), shape, c_strides(shape), 0, dtype)


def first(a: PyArray):
    """The element at ``a``'s offset (its only element when ``a.size == 1``)."""
    return a.buf[a.offset]


def collapse(shape, strides):
    """Drop size-1 dims and merge neighbours that step through memory as one dim."""
    out_shape, out_strides = [], []
    for n, st in zip(shape, strides):
        if n == 1:
            continue
        if out_shape and out_strides[-1] == st * n:
            out_shape[-1] *= n
            out_strides[-1] = st
        else:
            out_shape.append(n)
            out_strides.append(st)
    return out_shape, out_strides


def offsets(shape, strides, base: int = 0) -> list:
    """Buffer offsets of every position of ``shape`` in C order."""
    offs = [base]
    for n, st in zip(shape, strides):
        if n == 1:
            continue
        steps = range(0, n * st, st) if st else [0] * n
        offs = [o + s for o in offs for s in steps]
    return offs


def _runs(starts, shape, strides):
    """(starts of each innermost run, run length, run stride) for the positions below ``starts``."""
    shape, strides = collapse(shape, strides)
    if not shape:
        return starts, 1, 1
    n, st = shape[-1], strides[-1]
    if len(shape) > 1:
        inner = offsets(shape[:-1], strides[:-1])
        starts = [s + o for s in starts for o in inner]
    return starts, n, st


def gather(buf, starts, shape, strides) -> list:
    """The elements at ``start + position`` for each start, positions of ``shape`` in C order."""
    for n in shape:
        if n == 0:
            return []
    starts, n, st = _runs(starts, shape, strides)
    if n == 1:
        return list(map(buf.__getitem__, starts))
    if st == 0:
        out = []
        for s in starts:
            out += repeat(buf[s], n)
        return out
    if n < 8:
        steps = range(0, n * st, st)
        return list(map(buf.__getitem__, [s + j for s in starts for j in steps]))
    out = []
    extend = out.extend
    span = n * st
    if st > 0:
        for s in starts:
            extend(buf[s:s + span:st])
    else:
        for s in starts:
            stop = s + span
            extend(buf[s:stop if stop >= 0 else None:st])
    return out


def scatter(buf, starts, shape, strides, src) -> None:
    """Write ``src`` (a buffer of the same kind, C order) to the positions ``gather`` reads."""
    for n in shape:
        if n == 0:
            return
    starts, n, st = _runs(starts, shape, strides)
    if n == 1 or st == 0:
        if n != 1:
            starts = [s for s in starts for _ in range(n)]
        setitem = buf.__setitem__
        for s, v in zip(starts, src):
            setitem(s, v)
        return
    span = n * st
    j = 0
    for s in starts:
        stop = s + span
        buf[s:stop if stop >= 0 else None:st] = src[j:j + n]
        j += n


def values(a: PyArray) -> list:
    """``a``'s elements in C order as a new list of Python numbers."""
    buf = a.buf
    if a.contiguous:
        o = a.offset
        n = a.size
        if type(buf) is list:
            return buf[o:o + n]
        return (buf[o:o + n] if o or n != len(buf) else buf).tolist()
    return gather(buf, [a.offset], a.shape, a.strides)


def elements(a: PyArray):
    """``a``'s elements in C order for reading once: the buffer itself (or a C-level slice of
    it) when ``a`` is contiguous, else a gathered list. Never mutate or keep the result."""
    if a.contiguous:
        o = a.offset
        n = a.size
        return a.buf if o == 0 and n == len(a.buf) else a.buf[o:o + n]
    return gather(a.buf, [a.offset], a.shape, a.strides)


def write(a: PyArray, vals: list) -> None:
    """Store the C-order list ``vals`` (Python numbers of ``a``'s kind) into ``a``'s positions."""
    src = make_buffer(vals, a.dtype)
    buf = a.buf
    if a.contiguous:
        o = a.offset
        buf[o:o + a.size] = src
    else:
        scatter(buf, [a.offset], a.shape, a.strides, src)


def tolist(a: PyArray):
    flat = values(a)
    shape = a.shape
    if not shape:
        return flat[0]
    if 0 in shape:
        return _empty_nested(shape)
    for n in reversed(shape[1:]):
        flat = [flat[i:i + n] for i in range(0, len(flat), n)]
    return flat


def _empty_nested(shape):
    if shape[0] == 0:
        return []
    inner = shape[1:]
    return [_empty_nested(inner) for _ in range(shape[0])]


def element_offsets(a: PyArray) -> list:
    return offsets(a.shape, a.strides, a.offset)


def same_memory(a: PyArray, b: PyArray, limit: int = 1 << 20) -> bool:
    """numpy's ``shares_memory``: some element of ``a`` lives where some element of ``b`` does.

    Exact up to ``limit`` elements in total; beyond that, overlapping extents count as shared.
    """
    if a.buf is not b.buf or a.size == 0 or b.size == 0:
        return False
    lo_a, hi_a = extent(a)
    lo_b, hi_b = extent(b)
    if hi_a < lo_b or hi_b < lo_a:
        return False
    if a.size + b.size > limit:
        return True
    return not set(element_offsets(a)).isdisjoint(element_offsets(b))


def extent(a: PyArray):
    """The lowest and highest buffer offsets ``a`` touches (``a`` not empty)."""
    lo = hi = a.offset
    for n, st in zip(a.shape, a.strides):
        if st > 0:
            hi += (n - 1) * st
        else:
            lo += (n - 1) * st
    return lo, hi
