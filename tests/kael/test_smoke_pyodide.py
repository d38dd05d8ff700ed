"""Smoke test for every lane, Pyodide included: kael imports and the interpreter is new enough."""

import os
import sys

import kael.dtype


def test_kael_dtype_imports():
    assert kael.dtype.promote_types(kael.dtype.int64, kael.dtype.float32) is kael.dtype.float32


def test_python_is_at_least_3_11():
    assert sys.version_info >= (3, 11)


def test_pyodide_lane_runs_on_the_python_backend():
    if sys.platform == "emscripten":
        assert os.environ.get("KAEL_BACKEND") == "python"
