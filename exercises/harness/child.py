"""The script that runs in the untrusted process: it imports the submission, runs each test case
and sends back plain data. It decides nothing; the trusted parent compares and judges.

Standalone on purpose (standard library only, no import from the harness package): the harness
copies this file into the task directory, and a sandbox may show the child nothing else.

    python -I -B child.py --sys-path DIR [--sys-path DIR ...] job.json

Protocol (see README.md):

* stdin, first line: a nonce, read before anything else is imported or run.
* stdout: frames ``<MARK><nonce> <json>\\n``; nothing else is written there. Everything the
  submission prints goes to stderr (fd 1 is pointed at fd 2 before the submission is imported).
* frames, in order: ``ready`` (kael imported), then ``syntax_error`` (the submission does not
  compile; nothing more follows), or ``loaded`` or ``load_error`` (the submission), one ``case``
  per test case (in the reference's run, a case given data is preceded by a ``given`` frame
  with that data), ``done``.
"""

import json
import os
import sys
import time
import traceback

MARK = "@@kael-judge:"
MAX_MESSAGE = 2000
MAX_TYPE_NAME = 300  # frames.py's bounds: the parent refuses a longer field
MAX_TRACEBACK = 4000
MAX_VALUE_ITEMS = 200_000
MAX_DEPTH = 100


class _Channel:
    """Frames on a private duplicate of the original stdout."""

    def __init__(self, nonce):
        self.prefix = (MARK + nonce + " ").encode()
        self.fd = os.dup(1)
        os.dup2(2, 1)
        sys.stdout = sys.stderr

    def send(self, **frame):
        data = self.prefix + json.dumps(frame, allow_nan=True, separators=(",", ":")).encode() + b"\n"
        view = memoryview(data)
        while view:
            n = os.write(self.fd, view)
            view = view[n:]


class NotPlainData(TypeError):
    pass


def plain(value):
    """A copy of ``value`` made of None, bool, int, float, str, lists and str-keyed dicts only.

    Types are checked exactly (``type(x) is int``), so subclasses with odd ``__eq__`` are refused.
    Tuples become lists. Walks with an explicit stack."""
    count = 0
    root = [None]
    stack = [(value, root, 0, 0)]
    while stack:
        v, parent, key, depth = stack.pop()
        count += 1
        if count > MAX_VALUE_ITEMS:
            raise NotPlainData(f"the value has more than {MAX_VALUE_ITEMS} items")
        if depth > MAX_DEPTH:
            raise NotPlainData(f"the value is nested deeper than {MAX_DEPTH} levels")
        t = type(v)
        if v is None or t is bool or t is int or t is float or t is str:
            parent[key] = v
        elif t is list or t is tuple:
            if count + len(v) > MAX_VALUE_ITEMS:  # refuse a huge container before walking it
                raise NotPlainData(f"the value has more than {MAX_VALUE_ITEMS} items")
            out = [None] * len(v)
            parent[key] = out
            for i, item in enumerate(v):
                stack.append((item, out, i, depth + 1))
        elif t is dict:
            if count + len(v) > MAX_VALUE_ITEMS:
                raise NotPlainData(f"the value has more than {MAX_VALUE_ITEMS} items")
            out = {}
            parent[key] = out
            for k, item in v.items():
                if type(k) is not str:
                    raise NotPlainData(f"a dict key has type {type(k).__name__}; keys must be str")
                out[k] = None
                stack.append((item, out, k, depth + 1))
        else:
            raise NotPlainData(
                f"a value of type {t.__module__}.{t.__qualname__} is not plain data "
                "(None, bool, int, float, str, list, dict with str keys)"
            )
    return root[0]


def _type_name(exc_type):
    module = getattr(exc_type, "__module__", "?")
    name = getattr(exc_type, "__qualname__", "?")
    if type(module) is not str or type(name) is not str:
        return "<unnamed exception type>"
    return (name if module == "builtins" else f"{module}.{name}")[:MAX_TYPE_NAME]


def _safe_str(exc):
    try:
        text = str(exc)
    except BaseException:  # a hostile __str__
        text = "<unprintable exception>"
    if type(text) is not str:
        text = "<unprintable exception>"
    return text[:MAX_MESSAGE]


# This file (also as the copy the harness puts in a task directory) and, for the browser's
# in-process runs, its sibling inprocess.py: frames that are the harness's, not the learner's.
_HARNESS_FILES = {
    "<harness>",
    os.path.abspath(__file__),
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "inprocess.py"),
}


def _is_harness_frame(tb) -> bool:
    filename = tb.tb_frame.f_code.co_filename
    return filename in _HARNESS_FILES or os.path.abspath(filename) in _HARNESS_FILES


def _traceback(exc, task_dir=None):
    """The traceback without the harness's own leading frames (child.py, inprocess.py), with
    paths relative to the task directory when there is one."""
    try:
        tb = exc.__traceback__
        while tb is not None and _is_harness_frame(tb):
            tb = tb.tb_next
        text = "".join(traceback.format_exception(type(exc), exc, tb))
    except BaseException:
        return ""
    if task_dir:
        text = text.replace(task_dir + os.sep, "")
    return text[-MAX_TRACEBACK:]


def _outcome(exc, task_dir=None):
    if isinstance(exc, MemoryError):
        return {"memory": True}
    return {"raised": {"type": _type_name(type(exc)), "message": _safe_str(exc),
                       "traceback": _traceback(exc, task_dir)}}


def compile_source(source, filename):
    """``(code, None)`` when ``source`` compiles, else ``(None, error)`` with ``error`` =
    ``{"message", "line", "column", "text"}`` (line and column count from 1).

    Everything the compiler can raise on hostile source is the source's fault, so it is a
    syntax error here, never the judge's: a ``SyntaxError``, a ``ValueError`` (a NUL byte), a
    ``MemoryError`` or ``RecursionError`` from nesting too deep for the parser (``-----...1``).
    Untrusted code is compiled only here, in the sandboxed child, under its limits."""
    try:
        return compile(source, filename, "exec", dont_inherit=True), None
    except SyntaxError as exc:
        return None, {"message": f"{type(exc).__name__}: {exc.msg}", "line": exc.lineno or 1,
                      "column": exc.offset or 1, "text": (exc.text or "").rstrip("\n")[:MAX_MESSAGE]}
    except ValueError as exc:
        return None, {"message": f"SyntaxError: {_safe_str(exc)}", "line": 1, "column": 1, "text": ""}
    except (MemoryError, RecursionError) as exc:
        return None, {"message": (f"SyntaxError: the code is too deeply nested or too large for "
                                  f"Python's compiler ({type(exc).__name__})"),
                      "line": 1, "column": 1, "text": ""}


def _read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def _load(path, name, code=None):
    import types

    if code is None:
        code = compile(_read(path), os.path.basename(path), "exec")
    module = types.ModuleType(name)
    module.__file__ = path
    sys.modules[name] = module
    exec(code, module.__dict__)
    return module


def _given_input(channel, name, module, given):
    """The input of a case that is given data made in the reference's run: ``{"input": data}``
    in a submission's run; in the reference's run (``{"data": function name}``) the test file's
    data function makes ``{"input", "answer"}`` now, and it goes to the parent before the case
    runs. So the answer (two-moons labels) never exists in a submission's process."""
    if "input" in given:
        return given["input"]
    data = getattr(module, given["data"])()
    channel.send(event="given", name=name, value=plain(data))
    return data["input"]


def main(argv):
    nonce = sys.stdin.readline().strip()
    channel = _Channel(nonce)
    paths, rest = [], []
    i = 0
    while i < len(argv):
        if argv[i] == "--sys-path":
            paths.append(argv[i + 1])
            i += 2
        else:
            rest.append(argv[i])
            i += 1
    task_dir = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(task_dir, rest[0]), encoding="utf-8") as f:
        job = json.load(f)
    for p in reversed(paths):
        sys.path.insert(0, p)
    sys.path.insert(0, task_dir)

    import kael  # before the submission: a failure here is the harness's, not the learner's

    channel.send(event="ready", backend=kael.backend_name(), python=sys.version.split()[0])

    # Compile the submission before anything else: a syntax error ends the run with its line,
    # before any test (or the submission) runs.
    submission_path = os.path.join(task_dir, job["submission"])
    try:
        code, error = compile_source(_read(submission_path), job["submission"])
    except UnicodeDecodeError as exc:
        code, error = None, {"message": f"SyntaxError: {_safe_str(exc)}", "line": 1, "column": 1, "text": ""}
    if error is not None:
        channel.send(event="syntax_error", **error)
        os._exit(0)

    # The tests first (trusted code, loaded before the submission can change anything), then
    # the submission under its own module name, so that its tracebacks name the learner's file.
    tests = []
    for group in job["tests"]:
        module = _load(os.path.join(task_dir, group["file"]), group["module"])
        given = group.get("given", {})
        for name in group["names"]:
            tests.append((name, getattr(module, name), module, given.get(name)))
    if job.get("rules"):  # the exercise's rules (harness/rules.py), before the submission runs
        _load(os.path.join(task_dir, "judge_rules.py"), "judge_rules").enforce(job["rules"])
    try:
        submission = _load(submission_path, job["module"], code)
    except BaseException as exc:
        channel.send(event="load_error", **_outcome(exc, task_dir))
        os._exit(0)
    channel.send(event="loaded")

    for name, fn, module, given in tests:
        start = time.perf_counter()
        try:
            value = fn(submission) if given is None else fn(submission, _given_input(channel, name, module, given))
            outcome = {"value": plain(value)}
        except NotPlainData as exc:
            outcome = {"invalid": str(exc)}
        except BaseException as exc:
            outcome = _outcome(exc, task_dir)
        duration_ms = (time.perf_counter() - start) * 1000.0
        try:
            channel.send(event="case", name=name, duration_ms=round(duration_ms, 3), **outcome)
        except (ValueError, RecursionError, MemoryError) as exc:
            channel.send(event="case", name=name, duration_ms=round(duration_ms, 3),
                         invalid=f"the value could not be sent: {_safe_str(exc)}")
        if "memory" in outcome:
            os._exit(0)  # out of memory: the rest cannot be trusted to run; the parent says so
    channel.send(event="done")
    try:
        sys.stderr.flush()
    finally:
        os._exit(0)


if __name__ == "__main__":
    main(sys.argv[1:])
