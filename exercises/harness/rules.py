"""Rules an exercise states, enforced in the child before the submission is imported.

Standalone on purpose (standard library only, no import from the harness package): the harness
copies this file next to ``child.py`` in the task directory. ``.meta/config.json`` names them:

    "rules": {"switch_off": ["Mul.backward", "engine"], "keep": ["engine.set_tracer"],
              "no_recursion": true}

* ``switch_off``: kael functions the exercise asks the learner to write, by the ids kael declares
  (``kael/switchable.py``). Each gets a body that refuses (its code object is replaced, so every
  reference to it refuses, wherever it is kept); a module's id (``"engine"``) is every function
  defined in it except those in ``keep``. The files of those modules cannot be opened, linked,
  or read by another process or through ctypes. This is the second line, for a clear message:
  the judge's sandbox runs on a copy of kael in which those functions' source and bytecode do
  not exist (``server/grading/kaelcopy.py``), in one process with one thread.
* ``no_nested_backward``: kael's backward pass refuses to start inside another one in the same
  thread (see ``refuse_nested_backward``), and inside a learner's backward no kael node runs or
  is recorded (``refuse_nodes_in_learner_backward``); its engine's file is blocked like a
  switched-off one.
* ``no_recursion``: ``sys.setrecursionlimit`` refuses, and so do the ways around it: ctypes
  (``Py_SetRecursionLimit``), gc's object walks, the CPython test modules; the copy of sys's
  dict that ``_imp.create_builtin`` restores holds the refusing function too.

Nothing restores them: the child exits when its cases are done. The browser's in-process runs
(public tests only) do not apply them.
"""

import os
import sys

# Audit events that would get around a switched-off module (another process reading its file,
# ctypes calling the C library's open) or around the recursion limit (ctypes.pythonapi).
_CTYPES = {"ctypes.dlopen", "ctypes.dlsym", "ctypes.dlsym/handle", "ctypes.call_function",
           "ctypes.cdata", "ctypes.cdata/buffer", "ctypes.string_at", "ctypes.wstring_at",
           "ctypes.addressof"}
_PROCESSES = {"subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.spawn", "pty.spawn"}
_OBJECT_WALKS = {"gc.get_objects", "gc.get_referrers", "gc.get_referents"}
_TEST_MODULES = {"_testcapi", "_testinternalcapi", "_testlimitedcapi", "_testmultiphase"}

SWITCHED_OFF = ("this exercise asks you to write it yourself: kael's {} is switched off")
NESTED_BACKWARD = ("this exercise asks you to write the backward yourself: kael's autograd cannot "
                   "run inside your backward")
NO_RECURSION = ("sys.setrecursionlimit is disabled in this exercise: walk the graph with an "
                "explicit stack")


def mentions_refusal(text):
    """``text`` (a message, or a value as JSON) shows one of these rules refusing: a reference
    run must never need what they refuse (a test that catches the error would hide it)."""
    return any(marker in text for marker in (SWITCHED_OFF.split("{")[0], NESTED_BACKWARD,
                                             NO_RECURSION, "is not allowed in this exercise"))


def enforce(rules):
    """Apply ``rules`` (the ``"rules"`` of the exercise's config) to this process."""
    if any(rules.get(k) for k in ("switch_off", "no_nested_backward", "no_recursion")):
        forbid_exec()
    events, files = set(), set()
    if rules.get("switch_off"):
        files = switch_off(rules["switch_off"], rules.get("keep", ()))
        events |= _CTYPES | _PROCESSES
    if rules.get("no_nested_backward"):
        refuse_nested_backward()
        events |= _CTYPES | _PROCESSES
        files |= _module_files(sys.modules["kael.autograd.engine"])
    if rules.get("no_recursion"):
        _disable_recursion_limit()
        events |= _CTYPES | _OBJECT_WALKS | _PROCESSES
    if events or files:
        sys.addaudithook(_audit_hook(frozenset(events), frozenset(files)))


# execve and execveat by architecture (the outer filter kills every other architecture's calls).
_EXEC_CALLS = {"x86_64": (0xC000003E, (59, 322)), "aarch64": (0xC00000B7, (221, 281))}
_X32_BIT = 0x40000000  # x86_64's x32 numbering: nothing CPython needs
_SECCOMP_ERRNO_EPERM, _SECCOMP_ALLOW = 0x00050001, 0x7FFF0000


def forbid_exec():
    """A seccomp filter on this process and all it may become: ``execve`` and ``execveat`` fail
    with EPERM. The sandbox's own filter cannot refuse them (bwrap and setpriv exec the
    interpreter after installing it); this one is installed by the child itself, before the
    submission exists, and a filter can never be removed. Without it a submission could exec a
    fresh interpreter that never applied the rules (red-team finding 4: a recursive walk got
    Accepted through ``os.execve``). Linux only; elsewhere (the browser) nothing is enforced."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes
    import platform

    arch, calls = _EXEC_CALLS.get(platform.machine(), (None, ()))
    if arch is None:
        raise RuntimeError(f"cannot refuse exec on {platform.machine()}: unknown architecture")
    program = _exec_filter(arch, calls, x32=platform.machine() == "x86_64")

    class SockFilter(ctypes.Structure):
        _fields_ = [("code", ctypes.c_ushort), ("jt", ctypes.c_ubyte), ("jf", ctypes.c_ubyte),
                    ("k", ctypes.c_uint)]

    class SockFprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(SockFilter))]

    array = (SockFilter * len(program))(*[SockFilter(*ins) for ins in program])
    prog = SockFprog(len(program), array)
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_void_p, ctypes.c_ulong, ctypes.c_ulong]
    if libc.prctl(38, 1, None, 0, 0) != 0 or libc.prctl(22, 2, ctypes.byref(prog), 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "cannot install the filter that refuses exec")


def _exec_filter(arch, calls, x32):
    """The classic BPF program: on ``arch``, the calls in ``calls`` (and x32's numbering) get
    EPERM; everything else is allowed (the sandbox's own filter decides it)."""
    ld_arch, ld_nr = (0x20, 0, 0, 4), (0x20, 0, 0, 0)  # BPF_LD|BPF_W|BPF_ABS: seccomp_data fields
    checks = ([(0x35, 0, 0, _X32_BIT)] if x32 else []) + [(0x15, 0, 0, nr) for nr in calls]
    n = len(checks)
    body = [(code, n - i, 0, k) for i, (code, _, _, k) in enumerate(checks)]  # true: to EPERM
    return ([ld_arch, (0x15, 0, n + 1, arch), ld_nr] + body
            + [(0x06, 0, 0, _SECCOMP_ALLOW), (0x06, 0, 0, _SECCOMP_ERRNO_EPERM)])


def refuse_nested_backward():
    """kael's ``run_backward`` refuses to start inside another backward pass of this thread (a
    learner's ``backward`` that asks kael's autograd for the gradient it should compute).

    Its code is recompiled from its source with a first statement that walks this thread's
    frames; ``sys._getframe`` is a constant of that code (not a global the submission could
    rebind), and the frames are found by code identity."""
    from kael.autograd import engine
    from kael.autograd.node import FunctionNode

    engine.run_backward.__code__ = nested_check_code(engine.run_backward)
    refuse_nodes_in_learner_backward(FunctionNode)


def refuse_nodes_in_learner_backward(node_class):
    """Inside a learner's ``backward`` (a frame of ``node_class.apply`` running a Function not
    defined in kael is on this thread's stack), no node runs (``node.apply``: replaying kael's
    recorded backward) and none is recorded (ops under ``enable_grad``: a graph to walk by hand).
    The engine applies nodes one after the other, never one inside another, so a correct
    solution never meets this check."""
    apply_code = nested_check_code(node_class.apply, _LEARNER_BACKWARD_CHECK.format(
        target=f"{_GETFRAME!r}(0).f_code", message=NESTED_BACKWARD))
    node_class.apply.__code__ = apply_code
    init_code = nested_check_code(node_class.__init__, _LEARNER_BACKWARD_CHECK.format(
        target=repr(_APPLY_CODE), message=NESTED_BACKWARD))
    node_class.__init__.__code__ = init_code.replace(
        co_consts=tuple(apply_code if c == _APPLY_CODE else c for c in init_code.co_consts))


def nested_check_code(fn, check=None):
    """``fn``'s code recompiled from its source with a first statement that raises RuntimeError
    when another frame of the same code is on any thread's stack (a learner's backward that
    asks kael's autograd for its gradient, here or in a thread it waits for; the engine's own
    ``_depth`` is not consulted, a submission can write it). ``check``: other statements
    instead (a method's source is dedented first)."""
    import ast
    import inspect
    import textwrap
    import warnings

    tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    ast.increment_lineno(tree, fn.__code__.co_firstlineno - 1)
    body = tree.body[0].body
    start = 1 if isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) else 0
    while isinstance(body[start], ast.Global):  # the check reads the engine's pass depth
        start += 1
    check = ast.parse(check or _NESTED_CHECK.format(message=NESTED_BACKWARD)).body
    for node in (n for statement in check for n in ast.walk(statement)):
        if "lineno" in node._attributes:  # tracebacks point at the def line
            node.lineno = node.end_lineno = tree.body[0].lineno
    body[start:start] = check
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "'str' object is not callable": the placeholder below
        module = compile(tree, fn.__code__.co_filename, "exec")
    code = next(c for c in module.co_consts if type(c) is type(fn.__code__) and c.co_name == fn.__name__)
    placeholders = {_GETFRAME: sys._getframe, _CURRENT_FRAMES: sys._current_frames}
    consts = tuple(placeholders.get(c, c) if type(c) is str else c for c in code.co_consts)
    return code.replace(co_consts=consts)


_GETFRAME = "__judge_getframe__"
_CURRENT_FRAMES = "__judge_current_frames__"
# A pass under way is a frame of this very code object on any thread's stack (compared by
# identity with the code the harness compiled: no module global a submission could reset).
_NESTED_CHECK = f"""
_judge_frame = {_GETFRAME!r}(0)
for _judge_up in {_CURRENT_FRAMES!r}().values():
    while _judge_up is not None:
        if _judge_up.f_code is _judge_frame.f_code and _judge_up is not _judge_frame:
            raise RuntimeError({{message!r}})
        _judge_up = _judge_up.f_back
del _judge_frame, _judge_up
"""
_APPLY_CODE = "__judge_apply_code__"
_LEARNER_BACKWARD_CHECK = f"""
_judge_up = {_GETFRAME!r}(1)
while _judge_up is not None:
    if _judge_up.f_code is {{target}} and \\
            _judge_up.f_locals["self"].function.__module__.partition(".")[0] != "kael":
        raise RuntimeError({{message!r}})
    _judge_up = _judge_up.f_back
del _judge_up
"""


def resolve_ids(ids):
    """``"module:qualname"`` of each id (``kael/switchable.py``: kael names what may be switched
    off, so that moving an op inside kael cannot silently turn a rule off)."""
    import importlib

    table = importlib.import_module("kael.switchable")
    return [table.target(i) for i in ids]


def switch_off(ids, keep=()):
    """Give every function ``ids`` name a refusing body; return the files of their modules."""
    import importlib

    files = set()
    keep = set(resolve_ids(keep))
    for target in resolve_ids(ids):
        module_name, _, qualname = target.partition(":")
        module = importlib.import_module(module_name)
        files |= _module_files(module)
        if qualname == "*":
            found = [(name, value) for name, value in vars(module).items()
                     if type(value) is type(enforce) and value.__module__ == module_name
                     and f"{module_name}:{name}" not in keep]
        else:
            found = [(qualname, _resolve(module, qualname))]
        for name, fn in found:
            fn.__code__ = _refusing_code(fn.__code__, SWITCHED_OFF.format(f"{module_name}.{name}"))
    return files


def _resolve(module, qualname):
    value = module
    for part in qualname.split("."):
        value = getattr(value, part)
    value = getattr(value, "__func__", value)  # a classmethod's or a bound method's function
    if type(value) is not type(enforce):
        raise TypeError(f"{module.__name__}:{qualname} is not a Python function")
    return value


def _refusing_code(code, message):
    """A code object with ``code``'s name and free variables whose body raises RuntimeError."""
    free = code.co_freevars
    cells = "".join(f"    {name} = None\n" for name in free)
    uses = "".join(f"        {name}\n" for name in free)
    source = (f"def _outer():\n{cells}    def {code.co_name}(*args, **kwargs):\n{uses}"
              f"        raise RuntimeError({message!r})\n    return {code.co_name}\n")
    namespace = {}
    exec(compile(source, code.co_filename, "exec"), namespace)
    return namespace["_outer"]().__code__


def _module_files(module):
    """The module's source file and every compiled file of it in ``__pycache__``."""
    path = getattr(module, "__file__", None)
    if not path:
        return set()
    path = os.path.realpath(path)
    folder, name = os.path.split(path)
    stem = name.rsplit(".", 1)[0]
    files = {path}
    cache = os.path.join(folder, "__pycache__")
    try:
        files |= {os.path.join(cache, f) for f in os.listdir(cache) if f.startswith(stem + ".")}
    except OSError:
        pass
    return files


def _blocked_path(path, files):
    if isinstance(path, int) or not files:
        return False
    try:
        return os.path.realpath(os.fsdecode(path)) in files
    except (TypeError, ValueError, OSError):
        return False


def _audit_hook(events, files):
    def hook(event, args):
        if event in events:
            raise PermissionError(f"{event} is not allowed in this exercise")
        if event in ("open", "os.link", "os.symlink", "os.rename", "shutil.copyfile") and args \
                and _blocked_path(args[0], files):
            name = os.path.basename(os.fsdecode(args[0]))
            raise PermissionError(SWITCHED_OFF.format(name) + " (it cannot be loaded from disk)")
        if event == "import" and args and args[0] in _TEST_MODULES:
            raise PermissionError(f"importing {args[0]} is not allowed in this exercise")

    return hook


def _disable_recursion_limit():
    """``sys.setrecursionlimit`` refuses; so does every other reference to the original kept in a
    dict (the copy of sys's dict that ``_imp.create_builtin`` would restore it from)."""
    import gc

    builtin = type(sys.getrecursionlimit)

    def setrecursionlimit(limit):
        raise RuntimeError(NO_RECURSION)

    for holder in gc.get_objects():
        if type(holder) is dict and type(holder.get("setrecursionlimit")) is builtin:
            holder["setrecursionlimit"] = setrecursionlimit
    sys.setrecursionlimit = setrecursionlimit
