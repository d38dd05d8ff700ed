"""kael's JavaScript matmul kernel (web/src/worker/kernels.mjs, issue 26.2) gives the pure-Python
kernel's bits, element for element: float64 exactly, float32 after the one rounding both make.

The comparisons need Pyodide with the kernel registered (the Pyodide lane, tests/pyodide/run.mjs);
elsewhere they are skipped. The summation-order test runs everywhere: it is what makes the two
agree.
"""

from __future__ import annotations

import math
import random
import struct
import sys
from array import array

import pytest

from kael import dtype as dt
from kael.backend.pyarray import js_kernel, matmul as mm
from kael.backend.pyarray.array import TYPECODE, PyArray, c_strides, tolist

IN_PYODIDE = sys.platform == "emscripten"
needs_kernel = pytest.mark.skipif(not IN_PYODIDE, reason="the JavaScript kernel runs in Pyodide only")


def test_python_kernel_sums_in_order_above_the_unrolled_size():
    # (1e16 + 1) - 1e16 is 0.0 summed left to right; math.sumprod and sum() give 1.0.
    for k in (3, 129, 300):
        row = [1e16, 1.0, -1e16] + [0.0] * (k - 3)
        a = PyArray(array("d", row), (1, k), (k, 1), 0, dt.float64)
        b = PyArray(array("d", [1.0] * k), (k, 1), (1, 1), 0, dt.float64)
        assert tolist(mm.matmul(a, b)) == [[0.0]], k


@needs_kernel
def test_the_lane_runs_kael_with_the_js_kernel():
    assert js_kernel.KERNELS is not None, "tests/pyodide/run.mjs registers _kael_kernels before kael is imported"


def _values(rng: random.Random, count: int, wild: bool) -> list:
    """Normal numbers, or (wild) a spread of magnitudes where the order of a sum shows, with
    signed zeros and infinities."""
    if not wild:
        return [rng.gauss(0.0, 1.0) for _ in range(count)]
    pool = [0.0, -0.0, math.inf, -math.inf, 1e-310, 3.0]
    return [rng.choice(pool) if rng.random() < 0.05 else rng.gauss(0.0, 1.0) * 10.0 ** rng.randint(-8, 16)
            for _ in range(count)]


def _operand(rng, shape, dtype, layout, wild) -> PyArray:
    """An array of ``shape`` laid out as ``layout``: contiguous, transposed (the last two dims
    swapped in memory), strided (every other element, at an offset) or broadcast (stride 0 in
    the first dim)."""
    if layout == "broadcast" and shape and shape[0] > 1:
        inner = _operand(rng, shape[1:], dtype, "contiguous", wild)
        return PyArray(inner.buf, shape, (0,) + inner.strides, 0, dtype)
    size = math.prod(shape)
    if layout == "strided":
        buf = array(TYPECODE[dtype], _values(rng, 2 * size + 3, wild))
        return PyArray(buf, shape, tuple(2 * s for s in c_strides(shape)), 3, dtype)
    buf = array(TYPECODE[dtype], _values(rng, size, wild))
    if layout == "transposed" and len(shape) >= 2:
        swapped = shape[:-2] + (shape[-1], shape[-2])
        st = list(c_strides(swapped))
        st[-1], st[-2] = st[-2], st[-1]
        return PyArray(buf, shape, tuple(st), 0, dtype)
    return PyArray(buf, shape, c_strides(shape), 0, dtype)


def _bits(a: PyArray) -> list:
    """Each element's bits, every NaN as one (the two sides may carry different NaN payloads)."""
    fmt = "<" + TYPECODE[a.dtype]
    return [None if x != x else struct.pack(fmt, x) for x in a.buf]


def _both(monkeypatch, a: PyArray, b: PyArray):
    monkeypatch.setattr(js_kernel, "MIN_WORK", 0)
    js = mm.matmul(a, b)
    monkeypatch.setattr(js_kernel, "KERNELS", None)
    py = mm.matmul(a, b)
    monkeypatch.undo()
    return py, js


def _cases():
    """(a shape, b shape) pairs: inner sizes around the unrolled size (128), sizes 0, 1 and n,
    1-D operands and broadcast batches."""
    for k in (1, 2, 7, 127, 128, 129, 257):
        for m, n in ((0, 3), (1, 1), (3, 0), (5, 9), (1, 17)):
            yield (m, k), (k, n)
    yield (7,), (7,)
    yield (130,), (130, 4)
    yield (3, 129), (129,)
    yield (2, 1, 3, 40), (4, 40, 5)
    yield (2, 3, 131), (131, 2)
    yield (0, 3, 4), (4, 2)


CASES = list(_cases())


@needs_kernel
@pytest.mark.parametrize("dtypes", [("float64", "float64"), ("float32", "float32"), ("float32", "float64")])
@pytest.mark.parametrize("wild", [False, True], ids=["normal", "wild"])
def test_js_kernel_gives_the_python_kernels_bits(monkeypatch, dtypes, wild):
    rng = random.Random(f"{dtypes}{wild}")
    da, db = (getattr(dt, name) for name in dtypes)
    layouts = ("contiguous", "transposed", "strided", "broadcast")
    for sa, sb in CASES:
        for la in layouts:
            lb = rng.choice(layouts)
            a, b = _operand(rng, sa, da, la, wild), _operand(rng, sb, db, lb, wild)
            py, js = _both(monkeypatch, a, b)
            where = f"{sa} ({la}, {da.name}) @ {sb} ({lb}, {db.name})"
            assert (py.shape, py.dtype) == (js.shape, js.dtype), where
            py_bits, js_bits = _bits(py), _bits(js)
            if py_bits != js_bits:
                i = next(i for i, (x, y) in enumerate(zip(py_bits, js_bits)) if x != y)
                pytest.fail(f"{where}: element {i} is {py.buf[i]!r} in Python, {js.buf[i]!r} in JavaScript")


@needs_kernel
def test_small_and_integer_products_stay_in_python(monkeypatch):
    calls = []
    monkeypatch.setattr(js_kernel, "matmul", lambda *args, **kw: calls.append(args))
    ints = PyArray(array("q", [1] * 64 * 64), (64, 64), (64, 1), 0, dt.int64)
    mm.matmul(ints, ints)
    small = PyArray(array("d", [1.0] * 16), (4, 4), (4, 1), 0, dt.float64)
    mm.matmul(small, small)
    assert calls == []
    big = PyArray(array("d", [1.0] * 64 * 64), (64, 64), (64, 1), 0, dt.float64)
    mm.matmul(big, big)
    assert len(calls) == 1
