"""Run the learner-style PyTorch programs of ``tests/kael/corpus/`` with PyTorch or with kael
behind ``import torch``, and compare what they print.

    python tests/kael/corpus_runner.py --lib kael c13_training_loop_format   # one program's output
    python tests/kael/corpus_runner.py --report                             # match rate per backend

One child process per library (and kael backend) runs every program in turn, each in a fresh
``__main__`` namespace with the default dtype, grad mode and seed reset, and prints a JSON map
of program to output. With kael, a ``sys.meta_path`` finder answers ``import torch`` and every
``import torch.x.y`` with kael's module of the same path, so each exists once.

Outputs are compared line by line after PyTorch's and kael's own names are made one
(``torch.Size``/``kael.Size``, ``MulBackward0``/``MulBackward``: README's deviations): the text
between numbers must be the same (whitespace aside), and every number must agree to a relative
1e-4 plus absolute 1e-5 (float32 training loops round differently step by step)."""

from __future__ import annotations

import contextlib
import importlib
import importlib.abc
import importlib.util
import io
import json
import math
import os
import re
import runpy
import subprocess
import sys
import traceback

CORPUS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RTOL, ATOL = 1e-4, 1e-5


def programs() -> list:
    return sorted(f[:-3] for f in os.listdir(CORPUS) if f.endswith(".py") and f[0] == "c")


class _TorchIsKael(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """``torch`` and ``torch.<path>`` resolve to ``kael`` and ``kael.<path>``."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname == "torch" or fullname.startswith("torch."):
            return importlib.util.spec_from_loader(fullname, self)
        return None

    def create_module(self, spec):
        return importlib.import_module("kael" + spec.name[len("torch"):])

    def exec_module(self, module):
        pass


def _run_one(lib, name: str) -> str:
    lib.set_default_dtype(lib.float32)
    lib.set_grad_enabled(True)
    lib.manual_seed(67280421310721)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            runpy.run_path(os.path.join(CORPUS, name + ".py"), run_name="__main__")
        except Exception as e:  # the error is part of the output to compare
            last = traceback.extract_tb(e.__traceback__)[-1]
            print(f"error: {type(e).__name__}: {e} [{os.path.basename(last.filename)}:{last.lineno}]")
    return out.getvalue()


def child(lib_name: str, names: list) -> dict:
    if lib_name == "kael":
        sys.meta_path.insert(0, _TorchIsKael())
    lib = importlib.import_module("torch")
    if lib_name == "torch":
        lib.set_num_threads(1)
    return {n: _run_one(lib, n) for n in names}


def run(lib_name: str, names=None, backend=None, timeout=900) -> dict:
    """Every program's output under ``lib_name`` ("torch" or "kael"), in one child process."""
    names = names or programs()
    env = dict(os.environ, PYTHONPATH=ROOT, OMP_NUM_THREADS="1")
    if backend:
        env["KAEL_BACKEND"] = backend
    proc = subprocess.run(
        [sys.executable, os.path.abspath(__file__), "--child", lib_name, *names],
        capture_output=True, text=True, env=env, timeout=timeout, cwd=ROOT,
    )
    if proc.returncode:
        raise RuntimeError(f"corpus child ({lib_name}) failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.splitlines()[-1])


_NUMBER = re.compile(r"(?<![\w.])[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?(?![\w])|(?<![\w])-?(?:nan|inf)(?![\w])")


# PyTorch's node names where kael records another node (README: "Deliberate deviations")
NODE_NAMES = {"AddmmBackward": "LinearBackward", "SortBackward": "GatherBackward", "TopkBackward": "GatherBackward",
              "DotBackward": "MatmulBackward"}


def _canonical(line: str) -> str:
    line = re.sub(r"\b(?:torch|kael)\.", "T.", line)
    line = re.sub(r"Backward\d+\b", "Backward", line)
    return re.sub(r"\b\w+Backward\b", lambda m: NODE_NAMES.get(m.group(), m.group()), line)


def _split(line: str):
    line = _canonical(line)
    numbers = [float(m.group()) for m in _NUMBER.finditer(line)]
    skeleton = re.sub(r"\s+", "", _NUMBER.sub("#", line))
    return skeleton, numbers


def _close(a: float, b: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    if math.isinf(a) or math.isinf(b):
        return a == b
    return abs(a - b) <= ATOL + RTOL * abs(b)


def difference(expected: str, got: str):
    """``None`` when the outputs agree, else a one-line description of the first difference."""
    e_lines, g_lines = expected.splitlines(), got.splitlines()
    for i, (e, g) in enumerate(zip(e_lines, g_lines), 1):
        (es, en), (gs, gn) = _split(e), _split(g)
        if es != gs or len(en) != len(gn):
            return f"line {i}: expected {e.strip()!r}, got {g.strip()!r}"
        for a, b in zip(gn, en):
            if not _close(a, b):
                return f"line {i}: {a!r} differs from PyTorch's {b!r} ({e.strip()!r})"
    if len(e_lines) != len(g_lines):
        extra = (g_lines if len(g_lines) > len(e_lines) else e_lines)[min(len(e_lines), len(g_lines))]
        return f"{len(g_lines)} lines instead of {len(e_lines)}; first unmatched: {extra.strip()!r}"
    return None


def report() -> int:
    expected = run("torch")
    failed = 0
    for backend in ("numpy", "python"):
        got = run("kael", backend=backend)
        diffs = {n: difference(expected[n], got[n]) for n in expected}
        bad = {n: d for n, d in diffs.items() if d}
        failed += len(bad)
        print(f"{backend}: {len(diffs) - len(bad)} of {len(diffs)} programs print what PyTorch prints")
        for n, d in bad.items():
            print(f"  {n}: {d}")
    return 1 if failed else 0


def main(argv) -> int:
    if argv[:1] == ["--child"]:
        result = child(argv[1], argv[2:])
        sys.stdout = sys.__stdout__
        print(json.dumps(result))
        return 0
    if argv[:1] == ["--report"]:
        return report()
    if argv[:1] == ["--lib"]:
        for name, out in run(argv[1], argv[2:] or None).items():
            print(f"== {name}\n{out}", end="")
        return 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
