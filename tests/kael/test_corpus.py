"""The learner corpus (``tests/kael/corpus/``): every program prints what PyTorch prints, with
kael behind ``import torch`` on this lane's backend. Skipped without PyTorch."""

import functools
import os
import sys

import pytest

pytest.importorskip("torch")
if sys.platform == "emscripten":  # pragma: no cover  (no child processes in Pyodide)
    pytest.skip("the corpus runs programs in child processes", allow_module_level=True)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import corpus_runner  # noqa: E402


@functools.lru_cache(maxsize=None)
def _outputs(lib, backend=None):
    return corpus_runner.run(lib, backend=backend)


@pytest.mark.parametrize("name", corpus_runner.programs())
def test_program_prints_what_pytorch_prints(name):
    expected = _outputs("torch")[name]
    got = _outputs("kael", os.environ.get("KAEL_BACKEND") or None)[name]
    assert not expected.startswith("error:"), f"the program fails under PyTorch itself: {expected}"
    diff = corpus_runner.difference(expected, got)
    assert diff is None, f"{name}: {diff}\n--- PyTorch\n{expected}--- kael\n{got}"
