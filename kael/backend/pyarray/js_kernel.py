"""Large float matmuls in JavaScript, when kael runs in Pyodide and its host provides the kernel.

The host registers a JavaScript module named ``_kael_kernels`` before kael is imported (the
playground's worker and the Pyodide test lane register web/src/worker/kernels.mjs). Chosen once,
at import: everywhere else ``KERNELS`` is None and kael is the pure-Python package it always is
(``KAEL_JS_KERNELS=off`` chooses that in Pyodide too). The JavaScript reads the operands' buffers
in place with their strides and writes the result's buffer in place, summing each element in the
pure-Python path's order (matmul.py), so the two give the same bits.

A product of ``REPORT_WORK`` multiply-adds or more tells ``kael.utils.progress``'s reporter how
far it is, when the host registered one: it is then computed a slice of rows at a time
(``matmulRows``), the reporter called after each slice with the rows done so far.
"""

from __future__ import annotations

import os
import sys
from array import array

from .array import TYPECODE, PyArray, c_strides, offsets

ABI = 1  # the contract's version; kernels.mjs exports the one it implements
# Multiply-adds below which the pure-Python kernel is used: a call costs five buffer views.
# tests/bench/browser_vs_node.py --matmul, JavaScript's speed-up in Chromium / under Node:
# 8x8 @ 8x8 (512) 1.0x / 0.5x, 16x16 @ 16x16 (4096) 2.2x / 1.3x, 64x256 @ 256x1024 34x / 8.7x.
MIN_WORK = 1 << 12
# Multiply-adds from which a product reports its progress (with a reporter), and about how many
# each slice of rows does: 64x256 @ 256x1024 (16.7M) goes in 16 slices of 4 rows.
REPORT_WORK = 1 << 22
SLICE_WORK = 1 << 20


def _load():
    if sys.platform != "emscripten" or os.environ.get("KAEL_JS_KERNELS", "on") == "off":
        return None
    try:
        import _kael_kernels  # noqa: PLC0415 - registered by the host, only in Pyodide
    except ImportError:
        return None
    return _kael_kernels if getattr(_kael_kernels, "ABI", None) == ABI else None


KERNELS = _load()


def takes(a: PyArray, b: PyArray, dtype, work: int) -> bool:
    """Whether this product goes to JavaScript: float operands, enough work, a kernel."""
    return (KERNELS is not None and work >= MIN_WORK and a.dtype in TYPECODE and b.dtype in TYPECODE
            and a.dtype.is_floating_point and b.dtype.is_floating_point)


def _batch_offsets(x: PyArray, batch: tuple) -> array:
    """The buffer offset of each of ``x``'s matrices for the broadcast ``batch`` (C order)."""
    lead = len(batch) - (len(x.shape) - 2)
    strides = [0] * lead + [st if n != 1 else 0 for n, st in zip(x.shape[:-2], x.strides[:-2])]
    return array("i", offsets(batch, strides, x.offset) if batch else [x.offset])


def matmul(a2: PyArray, b2: PyArray, batch: tuple, shape: tuple, dtype, kernels=None) -> PyArray:
    """``a2 @ b2`` (both at least 2-D, inner sizes checked) into a new ``dtype`` array of
    ``shape``, computed by ``kernels`` (default: the host's)."""
    kernels = kernels or KERNELS
    m, k = a2.shape[-2:]
    n = b2.shape[-1]
    count = 1
    for s in batch:
        count *= s
    code = TYPECODE[dtype]
    out = array(code, bytes(array(code).itemsize * count * m * n))
    if count * m * n:
        args = (a2.buf, b2.buf, out, _batch_offsets(a2, batch), _batch_offsets(b2, batch),
                m, k, n, *a2.strides[-2:], *b2.strides[-2:])
        from ...utils import progress  # noqa: PLC0415 - kael.utils imports the tensor layers

        reporter = progress.reporter
        if reporter is None or count * m * k * n < REPORT_WORK or not hasattr(kernels, "matmulRows"):
            kernels.matmul(*args)
        else:
            _matmul_reporting(kernels, args, count * m, k * n, reporter, f"matmul {list(a2.shape)} @ {list(b2.shape)}: rows")
    return PyArray(out, shape, c_strides(shape), 0, dtype)


def _matmul_reporting(kernels, args, rows: int, row_work: int, reporter, what: str) -> None:
    """The product a slice of rows at a time, ``reporter(rows done, rows, what)`` after each."""
    step = max(1, SLICE_WORK // max(1, row_work))
    for start in range(0, rows, step):
        end = min(rows, start + step)
        kernels.matmulRows(*args, start, end)
        reporter(end, rows, what)
