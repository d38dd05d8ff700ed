"""Cheats that must never be Accepted: a submission that hands the work to kael's own code (its
built-in backward of the ops the exercise asks for, its checkpoint, a private copy of either
loaded from disk, kael's autograd run inside the learner's backward), or that makes a recursive
walk pass by raising the recursion limit another way (ctypes, gc, ``_imp``)."""

from __future__ import annotations

import re
import textwrap
from concurrent.futures import ThreadPoolExecutor

import pytest
from exercise_support import ROOT, WORKERS

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

# Each op built with kael inside forward (grad mode on); backward asks kael's autograd for the
# gradient (``_via_kael``; ``_via_kael_in_a_thread`` asks from another thread and waits) or runs
# the one node kael recorded (``_via_node``).
_AUTOGRAD_INSIDE = _code("""
    import kael
    import kael.nn.functional as F


    def _is_input(a):
        return isinstance(a, kael.Tensor) and a.is_floating_point()


    def _recorded(op, args):
        with kael.enable_grad():
            leaves = [a.detach().requires_grad_() if _is_input(a) else a for a in args]
            y = op(*leaves)
        return leaves, y


    def _function(name, forward, backward):
        return type(name, (kael.autograd.Function,), {"forward": staticmethod(forward),
                                                     "backward": staticmethod(backward)})


    def _via_kael(name, op):
        def forward(ctx, *args):
            ctx.leaves, ctx.y = _recorded(op, args)
            return ctx.y.detach()

        def backward(ctx, g):
            wanted = [a for a in ctx.leaves if _is_input(a)]
            grads = iter(kael.autograd.grad(ctx.y, wanted, g, allow_unused=True, retain_graph=True))
            return tuple(next(grads) if _is_input(a) else None for a in ctx.leaves)

        return _function(name, forward, backward)


    def _via_kael_in_a_thread(name, op):
        import threading

        inside = _via_kael(name, op)

        def backward(ctx, g):
            out = []
            thread = threading.Thread(target=lambda: out.append(inside.backward(ctx, g)))
            thread.start()
            thread.join()
            return out[0]

        return _function(name, inside.forward, backward)


    def _via_node(name, op):
        def forward(ctx, *args):
            ctx.leaves, y = _recorded(op, args)
            ctx.node = y.grad_fn
            return y.detach()

        def backward(ctx, g):
            grads = ctx.node.apply(g)
            grads = grads if isinstance(grads, tuple) else (grads,)
            return tuple(grads) + (None,) * (len(ctx.leaves) - len(grads))

        return _function(name, forward, backward)


    def _via_walk(name, op):
        # backward records ``op`` under enable_grad and walks kael's nodes by hand (Kahn's order,
        # node.apply): a hand-written engine over kael's own backward
        def forward(ctx, *args):
            ctx.save_for_backward(*[a for a in args if isinstance(a, kael.Tensor)])
            ctx.args = args
            return op(*args)

        def backward(ctx, g):
            leaves, y = _recorded(op, ctx.args)
            pending, stack, seen = {}, [y.grad_fn], {y.grad_fn}
            while stack:
                for ni in stack.pop().inputs:
                    if ni.edge is not None:
                        pending[ni.edge] = pending.get(ni.edge, 0) + 1
                        if ni.edge not in seen:
                            seen.add(ni.edge)
                            stack.append(ni.edge)
            grads, ready = {y.grad_fn: g}, [y.grad_fn]
            while ready:
                node = ready.pop()
                if isinstance(node, kael.autograd.AccumulateGrad):
                    node.variable.grad = grads.get(node)
                    continue
                for ni, gi in zip(node.inputs, node.apply(grads.pop(node))):
                    if ni.edge is not None:
                        if gi is not None:
                            grads[ni.edge] = grads[ni.edge] + gi if ni.edge in grads else gi
                        pending[ni.edge] -= 1
                        if pending[ni.edge] == 0:
                            ready.append(ni.edge)
            return tuple(a.grad if _is_input(a) else None for a in leaves)

        return _function(name, forward, backward)
    """)

_LAYER_NORM = _code("""
    def _layer_norm(x, weight, bias, eps):
        centred = x - x.mean(-1, keepdim=True)
        return centred / ((centred * centred).mean(-1, keepdim=True) + eps).sqrt() * weight + bias
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


_ELEMENTWISE = {"Mul": "lambda a, b: a * b", "Div": "lambda a, b: a / b", "Exp": "lambda x: x.exp()",
                "Log": "lambda x: x.log()", "Tanh": "lambda x: x.tanh()", "Sigmoid": "lambda x: x.sigmoid()"}


def _elementwise(via):
    """Exercise 02's six Functions, each made by ``via`` (``_via_kael`` or ``_via_node``)."""
    return "".join(f"{name} = {via}({name!r}, {op})\n" for name, op in _ELEMENTWISE.items())


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
    off = "this exercise asks you to write"  # a rule refused (the messages of harness/rules.py)
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
        ("elementwise-vjps", "autograd_inside"): (_AUTOGRAD_INSIDE + _elementwise("_via_kael"), off),
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
        ("elementwise-vjps", "node_inside"): (_AUTOGRAD_INSIDE + _elementwise("_via_node"), off),
        ("silu-mul", "autograd_inside"): (
            catalog.find("silu-mul").reference_source() + _AUTOGRAD_INSIDE
            + "SiluMul = _via_kael('SiluMul', lambda g, u: F.silu(g) * u)\n", off),
        ("softmax-cross-entropy", "autograd_inside"): (
            catalog.find("softmax-cross-entropy").reference_source() + _AUTOGRAD_INSIDE
            + "SoftmaxCrossEntropy = _via_kael('SoftmaxCrossEntropy', F.cross_entropy)\n", off),
        ("view-backward", "node_inside"): (
            catalog.find("view-backward").reference_source() + _AUTOGRAD_INSIDE + _code("""
            Narrow = _via_node("Narrow", lambda x, dim, start, length: x[(slice(None),) * (dim % x.dim())
                                                                     + (slice(start, start + length),)])
            Transpose = _via_node("Transpose", lambda x, a, b: x.transpose(a, b))
            Expand = _via_node("Expand", lambda x, *shape: x.expand(*shape))
            """), off),
        ("index-backward", "node_inside"): (
            catalog.find("index-backward").reference_source() + _AUTOGRAD_INSIDE + _code("""
            IndexSelect = _via_node("IndexSelect", lambda x, dim, index: x[(slice(None),) * (dim % x.dim())
                                                                          + (index,)])
            Take = _via_node("Take", lambda x, index: x.reshape(-1)[index.reshape(-1)].reshape(index.shape))
            """), off),
        ("nonsmooth-reductions", "autograd_inside"): (
            catalog.find("nonsmooth-reductions").reference_source() + _AUTOGRAD_INSIDE + _code("""
            Amax = _via_kael("Amax", lambda x, dim: x.amax(dim))
            Relu = _via_kael("Relu", lambda x: x.relu())
            Abs = _via_kael("Abs", lambda x: x.abs())
            """), off),
        ("nonsmooth-reductions", "autograd_inside_in_a_thread"): (
            catalog.find("nonsmooth-reductions").reference_source() + _AUTOGRAD_INSIDE + _code("""
            Amax = _via_kael_in_a_thread("Amax", lambda x, dim: x.amax(dim))
            Relu = _via_kael_in_a_thread("Relu", lambda x: x.relu())
            Abs = _via_kael_in_a_thread("Abs", lambda x: x.abs())
            """), off),
        ("nonsmooth-reductions", "node_inside"): (
            catalog.find("nonsmooth-reductions").reference_source() + _AUTOGRAD_INSIDE + _code("""
            Amax = _via_node("Amax", lambda x, dim: x.amax(dim))
            Relu = _via_node("Relu", lambda x: x.relu())
            Abs = _via_node("Abs", lambda x: x.abs())
            """), off),
        ("layernorm-backward", "autograd_inside"): (
            catalog.find("layernorm-backward").reference_source() + _AUTOGRAD_INSIDE + _LAYER_NORM
            + "LayerNorm = _via_kael('LayerNorm', _layer_norm)\n", off),
        ("silu-mul", "walk_inside"): (
            catalog.find("silu-mul").reference_source() + _AUTOGRAD_INSIDE
            + "SiluMul = _via_walk('SiluMul', lambda g, u: F.silu(g) * u)\n", off),
        ("softmax-cross-entropy", "walk_inside"): (
            catalog.find("softmax-cross-entropy").reference_source() + _AUTOGRAD_INSIDE
            + "SoftmaxCrossEntropy = _via_walk('SoftmaxCrossEntropy', F.cross_entropy)\n", off),
        ("layernorm-backward", "walk_inside"): (
            catalog.find("layernorm-backward").reference_source() + _AUTOGRAD_INSIDE + _LAYER_NORM
            + "LayerNorm = _via_walk('LayerNorm', _layer_norm)\n", off),
        ("nonsmooth-reductions", "walk_inside"): (
            catalog.find("nonsmooth-reductions").reference_source() + _AUTOGRAD_INSIDE + _code("""
            Relu = _via_walk("Relu", lambda x: x.relu())
            Abs = _via_walk("Abs", lambda x: x.abs())
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


# -- the same cheats through the judge's real sandbox (issue 22.1) -----------------------------------

_OS_REFUSALS = ("switched off", "can't start new thread", "Operation not permitted")


@pytest.fixture(scope="module")
def sandbox_reports():
    import os
    import shutil
    import sys
    from dataclasses import replace

    if os.geteuid() != 0 or shutil.which("bwrap") is None or sys.platform == "emscripten":
        pytest.skip("the judge's sandbox needs root and bubblewrap")
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))  # the server's package, for its sandbox
    from server.core.config import load_settings
    from server.grading.runners import make_runner_factory
    from sandbox_uids import uid_base

    factory = make_runner_factory(replace(load_settings(), sandbox_uid_base=uid_base()))
    runners = [factory(slot) for slot in range(2)]
    with ThreadPoolExecutor(2) as pool:
        futures = {key: pool.submit(grade, key[0], source, runner=runners[i % 2], limits=ROOMY, env={},
                                    known_mistakes=False, trace=False)
                   for i, (key, (source, _)) in enumerate(CHEATS.items())}
        return {key: f.result() for key, f in futures.items()}


@pytest.mark.parametrize("key", sorted(CHEATS), ids=lambda k: f"{k[0]}:{k[1]}")
def test_cheat_is_not_accepted_in_the_sandbox(sandbox_reports, key):
    """In the sandbox a rule holds at the OS level as well: the cheat meets kael's copy without
    the switched-off code, or cannot start its thread or process; the audit hook's message is
    there when it got that far."""
    report = sandbox_reports[key]
    assert report["verdict"] != "Accepted", f"the cheat {key[1]} of {key[0]} was Accepted in the sandbox"
    words = CHEATS[key][1]
    text = report["message"] + "\n" + _failures(report) + "\n" + report["output"]
    assert words in text or any(w in text for w in _OS_REFUSALS), text[-3000:]
