"""Cheats that must never be Accepted: a submission that hands the work to kael's own code (its
built-in backward of the ops the exercise asks for, its checkpoint, a private copy of either
loaded from disk, kael's autograd run inside the learner's backward), or that makes a recursive
walk pass by raising the recursion limit another way (ctypes, gc, ``_imp``)."""

from __future__ import annotations

import re
import textwrap
from concurrent.futures import ThreadPoolExecutor

import pytest
from exercise_support import WORKERS

from harness import catalog
from harness.grade import grade
from harness.runner import Limits

ROOMY = Limits(time_s=30.0, memory_mb=512)  # a loaded machine must not time a cheat out


def _code(body: str) -> str:
    return textwrap.dedent(body)


_PRIVATE_COPY = _code("""
    import importlib.util
    import os

    import kael


    def _private(relative, package):
        path = os.path.join(os.path.dirname(kael.__file__), *relative.split("/"))
        name = package + "._private_copy_" + os.path.basename(path)[:-3]
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    """)

# Each op built with kael inside forward (grad mode on), its backward asks kael's autograd.
_AUTOGRAD_INSIDE = _code("""
    import kael


    def _via_kael(name, op):
        def forward(ctx, *xs):
            with kael.enable_grad():
                leaves = [x.detach().requires_grad_() for x in xs]
                y = op(*leaves)
            ctx.graph = (leaves, y)
            return y.detach()

        def backward(ctx, g):
            leaves, y = ctx.graph
            return tuple(kael.autograd.grad(y, leaves, g, allow_unused=True))

        return type(name, (kael.autograd.Function,), {"forward": staticmethod(forward),
                                                     "backward": staticmethod(backward)})
    """)

# sum_to by asking kael's autograd to undo a broadcast it made.
_SUM_TO_BY_EXPAND = _code("""
    def sum_to(g, shape):
        with kael.enable_grad():
            x = kael.zeros(tuple(shape), dtype=g.dtype, requires_grad=True)
            y = x + kael.zeros(tuple(g.shape), dtype=g.dtype)
        (gx,) = kael.autograd.grad(y, [x], g)
        return gx
    """)


def _reference_with(exercise, old, new):
    source = catalog.find(exercise).reference_source()
    assert old in source, f"{exercise}: {old!r} not in the reference"
    return source.replace(old, new)


def _mutant_with(exercise, mutant, pattern, new):
    source = catalog.find(exercise).mutants()[mutant]
    changed, count = re.subn(pattern, lambda _: new, source, flags=re.M)
    assert count, f"{exercise}/{mutant}: {pattern!r} not in the mutant"
    return changed


_RAISE_LIMIT = r"sys\.setrecursionlimit\([0-9_]+\)"
_RAISE_LIMIT_WAYS = {
    "ctypes": "import ctypes; ctypes.pythonapi.Py_SetRecursionLimit(100_000)",
    "gc": ("import gc; [d['setrecursionlimit'](100_000) for d in gc.get_objects() "
           "if type(d) is dict and callable(d.get('setrecursionlimit'))"
           " and d is not sys.__dict__][:1]"),
    "imp": ("import _imp, importlib.machinery; "
            "_imp.create_builtin(importlib.machinery.ModuleSpec('sys', None)).setrecursionlimit(100_000)"),
}


def _cheats():
    """``{(exercise, name): (source, words one failing test's message must contain)}``."""
    off = "switched off"
    cheats = {
        ("elementwise-vjps", "kael_functions"): (_code("""
            from kael.ops.arithmetic import Div, Mul
            from kael.ops.unary import Exp, Log, Sigmoid, Tanh
            """), off),
        ("elementwise-vjps", "private_copy"): (_PRIVATE_COPY + _code("""
            _arithmetic = _private("ops/arithmetic.py", "kael.ops")
            _unary = _private("ops/unary.py", "kael.ops")
            Mul, Div = _arithmetic.Mul, _arithmetic.Div
            Exp, Log, Tanh, Sigmoid = _unary.Exp, _unary.Log, _unary.Tanh, _unary.Sigmoid
            """), ""),
        ("elementwise-vjps", "autograd_inside"): (_AUTOGRAD_INSIDE + _code("""
            Mul = _via_kael("Mul", lambda a, b: a * b)
            Div = _via_kael("Div", lambda a, b: a / b)
            Exp = _via_kael("Exp", lambda x: x.exp())
            Log = _via_kael("Log", lambda x: x.log())
            Tanh = _via_kael("Tanh", lambda x: x.tanh())
            Sigmoid = _via_kael("Sigmoid", lambda x: x.sigmoid())
            """), off),
        ("broadcast-backward", "kael_functions"): (_code("""
            from kael.ops._util import sum_to
            from kael.ops.arithmetic import Add, Div, Mul, Sub
            """), off),
        ("broadcast-backward", "autograd_inside"): (_AUTOGRAD_INSIDE + _code("""
            Add = _via_kael("Add", lambda a, b: a + b)
            Sub = _via_kael("Sub", lambda a, b: a - b)
            Mul = _via_kael("Mul", lambda a, b: a * b)
            Div = _via_kael("Div", lambda a, b: a / b)
            """) + _SUM_TO_BY_EXPAND, off),
        ("broadcast-backward", "sum_to_by_autograd"): (
            _reference_with("broadcast-backward", "def sum_to(g, shape):", "def _own_sum_to(g, shape):")
            + _SUM_TO_BY_EXPAND, off),
        ("sum-to", "kael_sum_to"): (
            _reference_with("sum-to", "def sum_to(g, shape):", "def _own_sum_to(g, shape):")
            + "\nfrom kael.ops._util import sum_to\n", off),
        ("matmul-backward", "kael_function"): (_code("""
            from kael.ops.matmul import Matmul as MatMul
            """), off),
        ("matmul-backward", "autograd_inside"): (_AUTOGRAD_INSIDE + _code("""
            MatMul = _via_kael("MatMul", lambda a, b: a @ b)
            """), off),
        ("matmul-backward", "broadcast_product_inside"): (_AUTOGRAD_INSIDE + _code("""
            MatMul = _via_kael("MatMul", lambda a, b: (a.unsqueeze(-1) * b.unsqueeze(-3)).sum(-2)
                               if a.dim() > 1 and b.dim() > 1 else a @ b)
            """), off),
        ("checkpoint", "kael_checkpoint_kept_at_import"): (_code("""
            import kael
            import kael.utils

            _kael = kael.utils.checkpoint_module.Checkpoint
            _forward, _backward = _kael.forward, _kael.backward


            class Checkpoint(kael.autograd.Function):
                forward = staticmethod(_forward)
                backward = staticmethod(_backward)


            def checkpoint(fn, *inputs):
                return Checkpoint.apply(fn, *inputs)
            """), off),
        ("checkpoint", "private_copy"): (_PRIVATE_COPY + _code("""
            _copy = _private("utils/checkpoint.py", "kael.utils")
            checkpoint = _copy.checkpoint
            """), ""),
    }
    for way, statement in _RAISE_LIMIT_WAYS.items():
        for exercise, mutant in (("dependency-count", "recursive_raised_limit"),
                                 ("deep-chain", "recursive_raised_limit")):
            cheats[(exercise, f"recursion_limit_by_{way}")] = (
                _mutant_with(exercise, mutant, _RAISE_LIMIT, statement), "")
        engine = _mutant_with("backward-engine", "recursive", "^import kael$", "import kael\nimport sys")
        cheats[("backward-engine", f"recursion_limit_by_{way}")] = (engine + "\n" + statement + "\n", "")
    return cheats


CHEATS = _cheats()


@pytest.fixture(scope="module")
def cheat_reports():
    with ThreadPoolExecutor(WORKERS) as pool:
        futures = {key: pool.submit(grade, key[0], source, limits=ROOMY)
                   for key, (source, _) in CHEATS.items()}
        return {key: f.result() for key, f in futures.items()}


def _failures(report):
    return "\n".join(f"{t['name']}: {t['message']}" for t in report["tests"] if t["status"] != "passed")


@pytest.mark.parametrize("key", sorted(CHEATS), ids=lambda k: f"{k[0]}:{k[1]}")
def test_cheat_is_not_accepted(cheat_reports, key):
    report = cheat_reports[key]
    assert report["verdict"] != "Accepted", f"the cheat {key[1]} of {key[0]} was Accepted"
    words = CHEATS[key][1]
    text = report["message"] + "\n" + _failures(report) + "\n" + report["output"]
    assert words in text, f"{key[1]} of {key[0]} was rejected, but not for the rule:\n{text[-3000:]}"
