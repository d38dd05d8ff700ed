"""The rules an exercise states (harness/rules.py): the code they compile (in process, so also in
the Pyodide lane, without applying them) and, in a child process, every way around them that
the harness knows of refused while what the tests need still works."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import types

import pytest
from exercise_support import EXERCISES, ROOT

import kael
from harness import rules
from kael.autograd import engine


def test_a_refusing_body_keeps_the_free_variables():
    def outer():
        a, b = 1, 2

        def inner(x):
            return a + b + x

        return inner

    inner = outer()
    inner.__code__ = rules._refusing_code(inner.__code__, "refused: inner")
    with pytest.raises(RuntimeError, match="refused: inner"):
        inner(1)


def _nested_run_backward():
    """A copy of kael's run_backward with the nested check: the copy, not kael's, is checked."""
    code = rules.nested_check_code(engine.run_backward)
    return types.FunctionType(code, engine.run_backward.__globals__, "run_backward",
                              engine.run_backward.__defaults__)


def test_the_nested_check_lets_a_plain_backward_run():
    run = _nested_run_backward()
    x = kael.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    run((y,), (None,))
    assert x.grad.tolist() == [2.0, 4.0]


def test_the_nested_check_refuses_a_backward_inside_a_backward():
    run = _nested_run_backward()

    def inner_pass(g):
        z = kael.tensor([3.0], requires_grad=True)
        run(((z * 2).sum(),), (None,))
        return g

    x = kael.tensor([1.0], requires_grad=True)
    y = x * 1.0
    y.register_hook(inner_pass)
    with pytest.raises(RuntimeError, match="cannot run inside your backward") as caught:
        run((y.sum(),), (None,))
    assert caught.value.__traceback__ is not None


_ESCAPES = textwrap.dedent("""
    import gc, importlib.machinery, os, sys, _imp
    sys.path.insert(0, {harness!r})
    sys.path.insert(0, {root!r})
    import kael, ctypes
    import rules
    arithmetic = os.path.join(os.path.dirname(kael.__file__), "ops", "arithmetic.py")
    os.symlink(arithmetic, {link!r})  # made before the rules: opening it is refused
    rules.enforce({{"switch_off": ["Mul.backward", "engine.format_shape"],
                   "no_recursion": True, "no_nested_backward": True}})
    x = kael.tensor([1.0, 2.0], requires_grad=True)
    x.exp().sum().backward()  # what is not switched off still works
    assert x.grad.tolist() == [x.exp().tolist()[0], x.exp().tolist()[1]]
    escapes = {{
        "kael's Mul backward": lambda: (x * x).sum().backward(),
        "a module-level function": lambda: kael.autograd.engine._fmt((1,)),
        "open the file": lambda: open(arithmetic).read(),
        "os.open the file": lambda: os.open(arithmetic, os.O_RDONLY),
        "open a symlink to it": lambda: open({link!r}).read(),
        "link it": lambda: os.link(arithmetic, {link!r} + "2"),
        "symlink it": lambda: os.symlink(arithmetic, {link!r} + "3"),
        "cat it": lambda: __import__("subprocess").run(["cat", arithmetic]),
        "sys.setrecursionlimit": lambda: sys.setrecursionlimit(10_000),
        "Py_SetRecursionLimit": lambda: ctypes.pythonapi.Py_SetRecursionLimit(10_000),
        "gc.get_objects": lambda: gc.get_objects(),
        "gc.get_referents": lambda: gc.get_referents(sys.__dict__),
        "sys from _imp": lambda: _imp.create_builtin(
            importlib.machinery.ModuleSpec("sys", None)).setrecursionlimit(10_000),
        "_testcapi": lambda: __import__("_testcapi"),
    }}
    for name, escape in escapes.items():
        try:
            escape()
        except (RuntimeError, PermissionError, ImportError) as exc:
            print("refused", name, type(exc).__name__)
        else:
            print("ESCAPED", name)
    """)


@pytest.mark.skipif(sys.platform == "emscripten", reason="needs a child process")
def test_every_known_way_around_the_rules_is_refused(tmp_path):
    script = _ESCAPES.format(harness=str(EXERCISES / "harness"), root=str(ROOT),
                             link=str(tmp_path / "copy.py"))
    done = subprocess.run([sys.executable, "-I", "-c", script], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.splitlines()
    assert len(lines) == 14 and all(line.startswith("refused ") for line in lines), done.stdout


@pytest.mark.skipif(sys.platform == "emscripten", reason="Pyodide starts no threads")
@pytest.mark.parametrize("reset_depth", [False, True])
def test_the_nested_check_refuses_a_backward_in_another_thread_during_a_backward(reset_depth):
    """Issue 22.1: with the engine's depth counter set back to 0 first (a module global the
    submission can write), the pass in the other thread used to go unseen."""
    import threading

    run = _nested_run_backward()
    errors = []

    def inner_pass(g):
        def other():
            if reset_depth:
                engine._depth = 0
            try:
                z = kael.tensor([3.0], requires_grad=True)
                run(((z * 2).sum(),), (None,))
            except RuntimeError as exc:
                errors.append(str(exc))

        thread = threading.Thread(target=other)
        thread.start()
        thread.join()
        return g

    x = kael.tensor([1.0], requires_grad=True)
    y = x * 1.0
    y.register_hook(inner_pass)
    depth = engine._depth
    try:
        run((y.sum(),), (None,))
    finally:
        engine._depth = depth
    assert len(errors) == 1 and "cannot run inside your backward" in errors[0]


def test_every_rule_id_in_the_exercises_names_a_function_kael_has():
    """Issue 27.3: exercises name what they switch off by the ids kael declares
    (kael/switchable.py); an id whose function moved or vanished fails here, not silently."""
    import importlib
    import json

    from kael import switchable

    used = set()
    for config in sorted(EXERCISES.glob("*/.meta/config.json")):
        exercise_rules = json.loads(config.read_text(encoding="utf-8")).get("rules") or {}
        used |= set(exercise_rules.get("switch_off", ())) | set(exercise_rules.get("keep", ()))
    assert used and used <= set(switchable.TARGETS), used - set(switchable.TARGETS)
    for rule_id, target in switchable.TARGETS.items():
        module_name, _, qualname = target.partition(":")
        module = importlib.import_module(module_name)
        if qualname == "*":
            continue
        assert isinstance(rules._resolve(module, qualname), types.FunctionType), rule_id
    with pytest.raises(KeyError, match="unknown switchable id"):
        rules.resolve_ids(["kael.ops._util:sum_to"])


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="seccomp is Linux's")
def test_the_childs_own_filter_refuses_exec_whatever_the_audit_hooks_say():
    """rules.forbid_exec, alone (no audit hook): execve fails with EPERM, the process goes on,
    and so does its Python (red-team finding 4 exec'd a fresh interpreter that never applied
    the rules)."""
    code = textwrap.dedent(f"""
        import os, sys
        sys.path.insert(0, {str(EXERCISES / "harness")!r})
        import rules
        rules.forbid_exec()
        for call in (lambda: os.execv("/bin/true", ["/bin/true"]),
                     lambda: os.execve(sys.executable, [sys.executable, "-c", "1"], {{}})):
            try:
                call()
            except PermissionError as exc:
                print("refused", exc.errno)
        print("still here", sum(range(10)))
        """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.split("\n")[:3] == ["refused 1", "refused 1", "still here 45"], out.stderr


def test_the_exec_filter_jumps_land_on_allow_and_eperm():
    """The BPF program: the wrong architecture allows (the sandbox's own filter kills those
    calls), each listed call and x32's numbering reach EPERM, anything else allows."""
    program = rules._exec_filter(0xC000003E, (59, 322), x32=True)
    allow, eperm = len(program) - 2, len(program) - 1
    assert program[allow][3] == rules._SECCOMP_ALLOW and program[eperm][3] == rules._SECCOMP_ERRNO_EPERM
    assert 1 + 1 + program[1][2] == allow  # arch mismatch
    for i in range(3, allow):
        assert i + 1 + program[i][1] == eperm and program[i][2] == 0
