"""numpy indexing: ints, slices, None and Ellipsis give views; int64 and bool arrays give copies.

A key is first applied as basic indexing, each advanced index keeping its whole dim in the view.
The advanced indices are then broadcast together; their dims go where the first one stood when
they are neighbours in the key, else first (numpy's rule; an int counts as an advanced index
when the key holds any array).
"""

from __future__ import annotations

from itertools import compress
from operator import index as as_int

from ... import dtype as dt
from ..errors import broadcast_error, broadcast_shapes, fmt_shape
from ..nested import flatten_nested, nested_shape
from .array import PyArray, gather, make_buffer, new, offsets, scatter, values, wrap_int64, write
from .elementwise import broadcast_values, cast_values, scalar
from .shape import expand

_VALID = (
    "only integers, slices (`:`), ellipsis (`...`), None and long or bool tensors are valid indices"
)


def _as_index(k):
    if type(k) is bool:
        return PyArray([k], (), (), 0, dt.bool_)
    if isinstance(k, (list, tuple)):
        shape = nested_shape(k)
        flat = flatten_nested(k, len(shape))
        kind = dt.bool_ if flat and all(type(v) is bool for v in flat) else dt.int64
        return new(flat, shape, kind)
    return k


def _parse(a: PyArray, key):
    """Apply the basic part of ``key``.

    Returns the view's shape, strides and offset, the advanced indices as (view dim, flat index
    values, index shape), and where their broadcast dims go among the other dims of the view.
    """
    if type(key) is not tuple:
        key = (key,)
    key = [_as_index(k) for k in key]
    has_array = any(isinstance(k, PyArray) for k in key)
    ndim = len(a.shape)
    consumed = ellipses = 0
    for k in key:
        if k is Ellipsis:
            ellipses += 1
        elif isinstance(k, PyArray) and k.dtype is dt.bool_:
            consumed += len(k.shape)
        elif k is not None:
            consumed += 1
    if ellipses > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if consumed > ndim:
        raise IndexError(f"too many indices for tensor of dimension {ndim}")

    shape, strides = [], []
    offset = a.offset
    advanced, positions = [], []
    insert_at = None
    d = 0
    for pos, k in enumerate(key):
        if k is None:
            shape.append(1)
            strides.append(0)
        elif k is Ellipsis:
            for _ in range(ndim - consumed):
                shape.append(a.shape[d])
                strides.append(a.strides[d])
                d += 1
        elif isinstance(k, slice):
            start, stop, step = k.indices(a.shape[d])
            n = len(range(start, stop, step))
            if n:
                offset += start * a.strides[d]
            shape.append(n)
            strides.append(a.strides[d] * step)
            d += 1
        elif isinstance(k, PyArray):
            if insert_at is None:
                insert_at = len(shape)
            positions.append(pos)
            if k.dtype is dt.bool_ and not k.shape:
                # numpy: a 0-d mask adds a size-1 dim and selects it once (True) or not (False).
                shape.append(1)
                strides.append(0)
                hit = bool(k.buf[k.offset])
                advanced.append((len(shape) - 1, [0] * hit, (int(hit),)))
            elif k.dtype is dt.bool_:
                _check_mask(a, k, d)
                for coords in _nonzero(values(k), k.shape):
                    shape.append(a.shape[d])
                    strides.append(a.strides[d])
                    advanced.append((len(shape) - 1, coords, (len(coords),)))
                    d += 1
            elif k.dtype is dt.int64:
                shape.append(a.shape[d])
                strides.append(a.strides[d])
                advanced.append((len(shape) - 1, _in_bounds(values(k), a.shape[d], d), k.shape))
                d += 1
            else:
                raise IndexError(f"tensors used as indices must be long or bool tensors, got {k.dtype.name}")
        else:
            try:
                i = as_int(k)
            except TypeError:
                raise IndexError(_VALID) from None
            size = a.shape[d]
            if not -size <= i < size:
                raise IndexError(f"index {i} is out of bounds for dim {d} with size {size}")
            offset += (i + size if i < 0 else i) * a.strides[d]
            if has_array:
                if insert_at is None:
                    insert_at = len(shape)
                positions.append(pos)
            d += 1
    shape += a.shape[d:]
    strides += a.strides[d:]
    if positions and positions[-1] - positions[0] != len(positions) - 1:
        insert_at = 0
    return shape, strides, offset, advanced, insert_at


def _check_mask(a: PyArray, mask: PyArray, d: int) -> None:
    for j, n in enumerate(mask.shape):
        if n != a.shape[d + j]:
            raise IndexError(
                f"the shape of the mask {fmt_shape(mask.shape)} at index {j} does not match the shape of "
                f"the indexed tensor {fmt_shape(a.shape)} at index {d + j}"
            )


def _nonzero(flat: list, shape: tuple) -> list:
    """Per dim, the coordinates of the true elements in C order."""
    hits = list(compress(range(len(flat)), flat))
    coords = []
    for n in reversed(shape[1:]):
        coords.append([h % n for h in hits])
        hits = [h // n for h in hits]
    coords.append(hits)
    return coords[::-1]


def _in_bounds(idx: list, size: int, d: int) -> list:
    if idx and (min(idx) < -size or max(idx) >= size):
        bad = next(i for i in idx if not -size <= i < size)
        raise IndexError(f"index {bad} is out of bounds for dim {d} with size {size}")
    if idx and min(idx) < 0:
        idx = [i + size if i < 0 else i for i in idx]
    return idx


def _advanced(shape, strides, offset, advanced, insert_at):
    """(starts, run shape, run strides, result shape) locating every selected element."""
    index_shapes = [s for _, _, s in advanced]
    try:
        bshape = broadcast_shapes(*index_shapes)
    except RuntimeError:
        raise IndexError(f"shape mismatch: indexing {broadcast_error(*index_shapes)}") from None
    bsize = 1
    for n in bshape:
        bsize *= n
    adv_off = [0] * bsize
    for vd, idx, ishape in advanced:
        st = strides[vd]
        if st:
            if ishape != bshape:
                idx = broadcast_values(new(idx, ishape, dt.int64), bshape, bsize)
            adv_off = [o + i * st for o, i in zip(adv_off, idx)]
    taken = {vd for vd, _, _ in advanced}
    rest = [(n, st) for vd, (n, st) in enumerate(zip(shape, strides)) if vd not in taken]
    pre, post = rest[:insert_at], rest[insert_at:]
    pre_offsets = offsets([n for n, _ in pre], [st for _, st in pre], offset)
    starts = [p + q for p in pre_offsets for q in adv_off]
    post_shape = tuple(n for n, _ in post)
    out_shape = tuple(n for n, _ in pre) + bshape + post_shape
    return starts, post_shape, tuple(st for _, st in post), out_shape


def getitem(a: PyArray, key) -> PyArray:
    shape, strides, offset, advanced, insert_at = _parse(a, key)
    if not advanced:
        return PyArray(a.buf, tuple(shape), tuple(strides), offset, a.dtype)
    starts, run_shape, run_strides, out_shape = _advanced(shape, strides, offset, advanced, insert_at)
    return new(gather(a.buf, starts, run_shape, run_strides), out_shape, a.dtype)


def setitem(a: PyArray, key, value) -> None:
    if not isinstance(value, PyArray):
        value = new([scalar(value, a.dtype)], (), a.dtype)
    shape, strides, offset, advanced, insert_at = _parse(a, key)
    if not advanced:
        copy_(PyArray(a.buf, tuple(shape), tuple(strides), offset, a.dtype), value)
        return
    starts, run_shape, run_strides, out_shape = _advanced(shape, strides, offset, advanced, insert_at)
    src = make_buffer(_source(value, out_shape, a.dtype), a.dtype)
    scatter(a.buf, starts, run_shape, run_strides, src)


def index_add_(a: PyArray, key, value: PyArray) -> None:
    """``a[key] += value`` where repeated indices accumulate (numpy's ``add.at``)."""
    shape, strides, offset, advanced, insert_at = _parse(a, key)
    if advanced:
        starts, run_shape, run_strides, out_shape = _advanced(shape, strides, offset, advanced, insert_at)
    else:
        starts, run_shape, run_strides, out_shape = [offset], tuple(shape), tuple(strides), tuple(shape)
    inner = offsets(run_shape, run_strides)
    src = _source(value, out_shape, a.dtype)
    buf = a.buf
    positions = [s + o for s in starts for o in inner]
    if a.dtype.is_floating_point:  # float32 rounds at every step, as numpy's add.at does
        for p, v in zip(positions, src):
            buf[p] += v
        return
    totals = {}
    get = totals.get
    for p, v in zip(positions, src):
        totals[p] = get(p, buf[p]) + v
    if a.dtype is dt.bool_:
        for p, v in totals.items():
            buf[p] = v != 0
    else:
        for p, v in zip(totals, wrap_int64(totals.values())):
            buf[p] = v


def _source(src: PyArray, shape: tuple, dtype) -> list:
    """``src``'s values broadcast to ``shape`` (leading size-1 dims dropped first, as numpy
    assignment does) and cast to ``dtype``."""
    s = src
    while len(s.shape) > len(shape) and s.shape[0] == 1:
        s = PyArray(s.buf, s.shape[1:], s.strides[1:], s.offset, s.dtype)
    size = 1
    for n in shape:
        size *= n
    if s.shape != shape and s.size != 1:
        try:
            s = expand(s, shape)
        except RuntimeError:
            raise broadcast_error(src.shape, shape) from None
    return cast_values(broadcast_values(s, shape, size), src.dtype, dtype)


def copy_(dst: PyArray, src: PyArray) -> None:
    write(dst, _source(src, dst.shape, dst.dtype))
