"""Issue 22.1: the exercise rules hold at the operating-system level in the judge's sandbox.

The audit hooks of ``harness/rules.py`` run in the process they guard, and code in that process
walked around them (a relative open with ``dir_fd``, a second interpreter through
``_posixsubprocess.fork_exec``, kael's autograd in a second thread after resetting the engine's
depth). In the sandbox a run with rules gets a copy of kael without the switched-off functions
(``server/grading/kaelcopy.py``) and may start no process and no thread (``seccomp.py``). Each
bypass is graded here through the real sandbox; the last test looks for the switched-off
functions' source in every file the sandbox shows a run."""

from __future__ import annotations

import ast
import inspect
import json
import subprocess
import textwrap
from dataclasses import replace

import pytest
from _support import needs_sandbox, uid_base

from harness import catalog
from harness.grade import grade
from harness.runner import Limits
from server.core.config import load_settings
from server.grading.runners import make_runner_factory

ROOMY = Limits(time_s=40, memory_mb=512)


@pytest.fixture(scope="module")
def runner():
    needs_sandbox()
    return make_runner_factory(replace(load_settings(), sandbox_uid_base=uid_base()))(0)


def _graded(runner, exercise, code):
    return grade(exercise, code, runner=runner, limits=ROOMY, known_mistakes=False, trace=False, env={})


# The original sum_to, got past the hooks, replaces the learner's (``_stolen`` reads kael's
# ops/_util.py source and runs it as a module of kael.ops).
_STEAL = textwrap.dedent('''
    import os, types
    import kael

    def _run_source(source):
        module = types.ModuleType("kael.ops._stolen")
        module.__package__ = "kael.ops"
        exec(compile(source, "_stolen.py", "exec"), module.__dict__)
        return module.sum_to

    OPS = os.path.join(os.path.dirname(kael.__file__), "ops")
    ''')
_DIR_FD = _STEAL + textwrap.dedent('''
    _fd = os.open("_util.py", os.O_RDONLY, dir_fd=os.open(OPS, os.O_RDONLY))
    sum_to = _run_source(os.read(_fd, 1 << 20).decode())
    ''')
_FORK_EXEC = _STEAL + textwrap.dedent('''
    import _posixsubprocess, sys
    _r, _w = os.pipe()
    _er, _ew = os.pipe()
    _python = sys.executable.encode()
    _posixsubprocess.fork_exec(
        [_python, b"-c", b"import sys; sys.stdout.write(open(sys.argv[1]).read())",
         os.path.join(OPS, "_util.py").encode()], [_python], True, (_w,), None, None,
        -1, -1, -1, _w, -1, -1, _er, _ew, False, False, -1, None, None, None, -1, None, False)
    os.close(_w)
    _chunks = []
    while _chunk := os.read(_r, 65536):
        _chunks.append(_chunk)
    sum_to = _run_source(b"".join(_chunks).decode())
    ''')
_FORK = _STEAL + textwrap.dedent('''
    _r, _w = os.pipe()
    if os.fork() == 0:
        os.write(_w, open(os.path.join(OPS, "_util.py"), "rb").read())
        os._exit(0)
    os.close(_w)
    sum_to = _run_source(os.read(_r, 1 << 20).decode())
    ''')
# kael's autograd in a second thread inside the learner's backward, with the engine's depth
# counter set back to 0 first
_THREAD = textwrap.dedent('''
    import threading
    import kael
    import kael.autograd.engine as _engine

    class SiluMul(kael.autograd.Function):
        @staticmethod
        def forward(ctx, gate, up):
            with kael.enable_grad():
                ctx.leaves = [gate.detach().requires_grad_(), up.detach().requires_grad_()]
                ctx.y = ctx.leaves[0] * ctx.leaves[0].sigmoid() * ctx.leaves[1]
            return ctx.y.detach()

        @staticmethod
        def backward(ctx, g):
            out = []
            def other():
                _engine._depth = 0
                out.append(kael.autograd.grad(ctx.y, ctx.leaves, g, retain_graph=True))
            thread = threading.Thread(target=other)
            thread.start()
            thread.join()
            return tuple(out[0])

    def silu_mul(gate, up):
        return SiluMul.apply(gate, up)
    ''')

# A fresh interpreter exec'd over the child, on the child's own frame pipe, with the recursion
# limit raised before the harness runs again (red-team finding 4: a recursive deep-chain walk was
# Accepted). The audit hook refuses os.exec; under it, the child's own seccomp filter refuses
# execve (rules.forbid_exec).
_EXEC = textwrap.dedent('''
    import os, sys
    _f = sys._getframe()
    while _f is not None and "channel" not in _f.f_locals:
        _f = _f.f_back
    _nonce = _f.f_locals["channel"].prefix.decode().split(":", 1)[1].strip()
    os.dup2(_f.f_locals["channel"].fd, 1)
    _boot = ("import sys, io, importlib.util\\n"
             "sys.setrecursionlimit(200000)\\n"
             "spec = importlib.util.spec_from_file_location('k', '/task/child.py')\\n"
             "m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)\\n"
             "sys.stdin = io.StringIO(sys.argv[1] + '\\\\n')\\n"
             "m.main(['--sys-path', '/opt/kael', 'job.json'])\\n")
    os.execve(sys.executable, [sys.executable, "-I", "-S", "-c", _boot, _nonce], dict(os.environ))

    def count_nodes(fn, seen=None):
        seen = set() if seen is None else seen
        if fn is not None and fn not in seen:
            seen.add(fn)
            for nxt, _ in fn.next_functions:
                count_nodes(nxt, seen)
        return len(seen)

    def depth(fn):
        kids = [k for k, _ in fn.next_functions if k is not None]
        return 1 + max((depth(k) for k in kids), default=0)
    ''')

# kael's own fused op, its static forward and backward called from the learner's Function: no
# node applied, no nested pass (red-team finding 5, Accepted 16/16 before it was switched off).
_NATIVE_LAYER_NORM = textwrap.dedent('''
import types
import kael
from kael.ops.layer_norm import NativeLayerNorm as _K


class LayerNorm(kael.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, bias, eps):
        ctx.bshape = tuple(bias.shape)
        return _K.forward(ctx, x, weight, bias, dims=(x.ndim - 1,), eps=eps)

    @staticmethod
    def backward(ctx, g):
        p = types.SimpleNamespace(saved_tensors=ctx.saved_tensors, dims=ctx.dims,
                                  needs_input_grad=(True, True, True),
                                  inputs=(None, None, types.SimpleNamespace(shape=ctx.bshape)))
        dx, dw, db = _K.backward(p, g)
        return dx, dw, db, None


def layer_norm(x, weight, bias, eps=1e-5):
    return LayerNorm.apply(x, weight, bias, eps)
''')


@pytest.mark.parametrize("exercise, name, cheat", [
    ("sum-to", "dir_fd", _DIR_FD),
    ("sum-to", "fork_exec", _FORK_EXEC),
    ("sum-to", "fork", _FORK),
    ("silu-mul", "thread with the depth reset", _THREAD),
    ("deep-chain", "exec a fresh interpreter", _EXEC),
    ("layernorm-backward", "kael's NativeLayerNorm called directly", _NATIVE_LAYER_NORM),
])
def test_a_known_bypass_of_the_rules_is_not_accepted_in_the_sandbox(runner, exercise, name, cheat):
    e = catalog.find(exercise)
    report = _graded(runner, e, (e.reference_source() + "\n" if name != "exec a fresh interpreter" else "") + cheat)
    assert report["verdict"] == "Runtime Error", (name, report["verdict"], report["message"])
    text = report["message"] + "".join(t["message"] for t in report["tests"]) + report["output"]
    assert any(word in text for word in ("switched off", "Operation not permitted", "can't start new thread",
                                         "not allowed in this exercise")), text[-2000:]


def test_the_rules_exercises_still_accept_their_reference_in_the_sandbox(runner):
    for exercise in ("sum-to", "silu-mul", "backward-engine", "checkpoint"):
        e = catalog.find(exercise)
        report = _graded(runner, e, e.reference_source())
        assert report["verdict"] == "Accepted", (exercise, report["message"], report["output"][-2000:])


_SEARCH = textwrap.dedent('''
    import json, os, sys, zipfile
    sys.path.insert(0, "/opt/kael")
    needles = [n.encode("latin-1") for n in json.loads(sys.stdin.readline())]
    found, files, errors = [], 0, 0
    def look(path, data):
        for n in needles:
            if n in data:
                found.append([path, n[:60].decode("latin-1")])
    for top in ("/usr", "/opt", "/task", "/tmp"):  # /dev: devices only (zero, urandom: endless)
        for folder, dirs, names in os.walk(top):
            for name in names:
                path = os.path.join(folder, name)
                try:
                    with open(path, "rb") as f:
                        data = f.read()
                except OSError:
                    errors += 1
                    continue
                files += 1
                look(path, data)
                if zipfile.is_zipfile(path):
                    with zipfile.ZipFile(path) as z:
                        for member in z.namelist():
                            look(path + "!" + member, z.read(member))
    for fd in range(64):  # every descriptor the run may hold (RLIMIT_NOFILE), open or not
        try:
            look("fd %d" % fd, os.pread(fd, 1 << 22, 0))
        except OSError:
            pass
    import linecache, kael.ops._util
    look("linecache", "".join(linecache.getlines(kael.ops._util.__file__)).encode())
    print(json.dumps({"found": found, "files": files, "sum_to": kael.ops._util.sum_to.__code__.co_names}))
    ''')


def _needles(module, name):
    """What a file holding the function would contain: each statement of its body as written
    (its source, past the docstring) and its bytecode (what a ``.pyc`` of it holds)."""
    source = inspect.getsource(module)
    function = getattr(module, name)
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef) and node.name == name:
            lines = source.splitlines(keepends=True)
            body = [lines[s.lineno - 1][s.col_offset:] + "".join(lines[s.lineno:s.end_lineno])
                    for s in node.body[1:]]
            return [b for b in body if len(b) > 30] + [function.__code__.co_code.decode("latin-1")]
    raise LookupError(name)


def _search(runner, rules, needles):
    task = runner.make_task_dir()
    try:
        (task / "main.py").write_text(_SEARCH)
        (task / "job.json").write_text(json.dumps({"rules": rules}))
        runner.seal_task_dir(task)
        result = runner.run(task, ["main.py"], ROOMY, stdin=(json.dumps(needles) + "\n").encode())
    finally:
        subprocess.run(["rm", "-rf", str(task)], check=False)
    assert result.exit_code == 0, result.stderr.decode(errors="replace")[-3000:]
    return json.loads(result.stdout.decode().splitlines()[-1])


def test_no_file_in_the_sandbox_holds_a_switched_off_function(runner):
    import kael.ops._util as util

    needles = _needles(util, "sum_to")
    assert len(needles) >= 3
    unruled = _search(runner, {}, needles)  # the search finds them where kael is whole
    assert {path for path, _ in unruled["found"]} >= {"/opt/kael/kael/ops/_util.py", "linecache"}
    assert any(path.endswith(".pyc") for path, _ in unruled["found"]), unruled["found"]
    seen = _search(runner, {"switch_off": ["sum_to"]}, needles)
    assert seen["files"] > 500 and seen["found"] == [], seen["found"]
    assert "RuntimeError" in seen["sum_to"]
