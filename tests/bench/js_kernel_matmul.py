"""Run inside Pyodide (tests/bench/browser_vs_node.py --matmul): float64 matmuls through kael's
pure-Python kernel and through the host's JavaScript kernel, interleaved, medians in ms; the
last expression is the result (a dict), and whether both gave the same bytes."""

import random
import statistics
import time
from array import array

from kael import dtype as dt
from kael.backend.pyarray import js_kernel, matmul as mm
from kael.backend.pyarray.array import PyArray

kernels, min_work = js_kernel.KERNELS, js_kernel.MIN_WORK
rng = random.Random(0)


def operand(rows, cols):
    return PyArray(array("d", [rng.gauss(0, 1) for _ in range(rows * cols)]), (rows, cols), (cols, 1), 0, dt.float64)


def once(a, b, on, repeat):
    js_kernel.KERNELS = kernels if on else None
    js_kernel.MIN_WORK = 0
    start = time.perf_counter()
    for _ in range(repeat):
        c = mm.matmul(a, b)
    return (time.perf_counter() - start) * 1000 / repeat, c.buf.tobytes()


def measure(m, k, n, rounds, repeat):
    a, b = operand(m, k), operand(k, n)
    times, results = {"python": [], "js": []}, {}
    for r in range(rounds):
        for on in (True, False) if r % 2 == 0 else (False, True):
            ms, results[on] = once(a, b, on, repeat)
            times["js" if on else "python"].append(ms)
    py, js = statistics.median(times["python"]), statistics.median(times["js"])
    return {"python_ms": round(py, 3), "js_ms": round(js, 3), "speedup": round(py / js, 1), "same_bits": results[True] == results[False]}


try:
    result = {"js kernel": kernels is not None} if kernels is None else {
        f"{m}x{k} @ {k}x{n}": measure(m, k, n, rounds, repeat)
        for m, k, n, rounds, repeat in ((64, 256, 1024, 3, 1), (32, 32, 32, 3, 20), (16, 16, 16, 3, 100), (8, 8, 8, 3, 300))
    }
finally:
    js_kernel.KERNELS, js_kernel.MIN_WORK = kernels, min_work
result
