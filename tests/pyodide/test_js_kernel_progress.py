"""A large JavaScript matmul tells kael.utils.progress's reporter how far it is (issue 25.4): with a
reporter it is computed a slice of rows at a time and gives the bits of the one-call product;
with none it is one call and reports nothing."""

from __future__ import annotations

import random
import sys
from array import array

import pytest

from kael import dtype as dt
from kael.backend.pyarray import js_kernel, matmul as mm
from kael.backend.pyarray.array import PyArray, c_strides
from kael.utils import progress

needs_kernel = pytest.mark.skipif(sys.platform != "emscripten", reason="the JavaScript kernel runs in Pyodide only")


def _array(rng, shape, dtype=dt.float32):
    size = 1
    for s in shape:
        size *= s
    code = "f" if dtype is dt.float32 else "d"
    return PyArray(array(code, [rng.gauss(0.0, 1.0) for _ in range(size)]), shape, c_strides(shape), 0, dtype)


@pytest.fixture
def reports():
    seen = []
    previous = progress.set_reporter(lambda done, total, what: seen.append((done, total, what)))
    yield seen
    progress.set_reporter(previous)


def test_set_reporter_returns_the_previous_and_refuses_a_non_function():
    previous = progress.set_reporter(None)
    try:
        first = lambda *a: None  # noqa: E731
        assert progress.set_reporter(first) is None
        assert progress.set_reporter(None) is first
        with pytest.raises(TypeError, match="a progress reporter is a function fn\\(done, total, what\\), not int"):
            progress.set_reporter(3)
    finally:
        progress.set_reporter(previous)


@needs_kernel
@pytest.mark.parametrize("shapes", [((3, 40, 300), (300, 120)), ((70, 200), (200, 310))])
def test_a_reported_product_gives_the_one_call_bits(monkeypatch, shapes, reports):
    monkeypatch.setattr(js_kernel, "REPORT_WORK", 1)  # every product reports, in many slices
    monkeypatch.setattr(js_kernel, "SLICE_WORK", 30_000)
    rng = random.Random(str(shapes))
    a, b = _array(rng, shapes[0]), _array(rng, shapes[1])
    reported = mm.matmul(a, b)
    rows = len(reports) and reports[-1][1]
    progress.set_reporter(None)
    plain = mm.matmul(a, b)
    assert reported.shape == plain.shape
    assert list(reported.buf) == list(plain.buf)
    done = [d for d, _, _ in reports]
    batch_rows = 1
    for s in shapes[0][:-1]:
        batch_rows *= s
    assert rows == batch_rows and len(done) > 3, reports
    assert done == sorted(done) and done[-1] == rows
    assert reports[0][2] == f"matmul {list(shapes[0])} @ {list(shapes[1])}: rows"


@needs_kernel
def test_small_products_and_no_reporter_report_nothing(monkeypatch, reports):
    rng = random.Random(0)
    calls = []
    real = js_kernel.KERNELS
    monkeypatch.setattr(js_kernel, "KERNELS", type("K", (), {
        "matmul": staticmethod(lambda *a: (calls.append("one call"), real.matmul(*a))),
        "matmulRows": staticmethod(real.matmulRows)})())
    mm.matmul(_array(rng, (64, 64)), _array(rng, (64, 64)))  # 262,144 multiply-adds < REPORT_WORK
    assert reports == [] and calls == ["one call"]
    progress.set_reporter(None)
    mm.matmul(_array(rng, (64, 256)), _array(rng, (256, 1024)))  # large, but nobody is listening
    assert calls == ["one call", "one call"]
