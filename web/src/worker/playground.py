"""The playground's side of the worker: runs the editor's code and returns plain data.

User code may import this module to draw on the page while it runs::

    import playground
    playground.plot("loss", step, loss.item())   # one point of a live line plot
    playground.progress(step, steps, "training") # the progress bar: what it counts, how far
    playground.boundary(model, X, Y)             # shade a 2-D classifier's predicted class

Without any of that, a run shows the loss per optimizer step and the progress of kael's long
operations by itself: playground_watch.py, started and stopped by ``run``. ``kael.viz.show(t)``
and ``kael.viz.trace()`` reach the page through kael.viz's display hook, installed by
``install_display_hook``. Every function here returns JSON text; errors are data. The worker
writes this module and the ones it imports into Python's site folder (site_files.json).
"""

from __future__ import annotations

import ast
import json
import linecache
import math
import re
import sys
import time
import traceback

from playground_emit import KIND, emit, finite, json_default
from playground_watch import WATCH, declare_boundary, show_progress

FILENAME = "main.py"
__all__ = ["boundary", "display", "plot", "progress", "show"]
# What worker.ts accepts as a kind (its DISPLAY_KIND_NAME).
_KIND_NAME = re.compile(r"[a-z][a-z0-9_-]{0,39}")


# ---------------------------------------------------------------------------- user-facing API


def plot(series: str, x, y, xlabel: str = "step") -> None:
    """Add the point (x, y) to the live line plot named `series`; `xlabel` names the x axis (the
    y axis is named by the series)."""
    y = finite(y.item() if hasattr(y, "item") else y)
    emit(KIND["plot"], {"series": str(series), "x": float(x), "y": y, "xlabel": str(xlabel)})


def progress(value, total, label: str = "") -> None:
    """Show the page's progress bar at value / total; `label` says what is counted ("training
    steps"). Call it as often as you like: the page hears of it a few times a second, and the bar
    goes when the run ends."""
    value, total = float(value), float(total)
    if not (math.isfinite(value) and math.isfinite(total)):
        raise ValueError(f"progress takes finite numbers, not {value!r} of {total!r}")
    show_progress(value, total, str(label))


def boundary(model, points, labels=None, threshold: float = 0.0) -> None:
    """Shade what `model` predicts over the box of `points` in the Plot tab, with the points on
    it: now, while the program trains (about every second) and when the run ends.

    `points` is an (N, 2) tensor of 2-D inputs, `labels` their N classes (optional). The model
    maps (M, 2) points to one score each, shape (M,) or (M, 1), class 1 where the score is above
    `threshold` (0 for logits, 0.5 for probabilities), or to (M, C) scores, the class their
    argmax. This is the one rule: a program asks for a boundary by calling this."""
    declare_boundary(model, points, labels, threshold)


def display(kind: str, data, title: str | None = None) -> None:
    """Send `data` (JSON data) to the page's panel that draws `kind`: each panel in
    web/src/panels/ names the kinds it draws, and a kind no panel draws is drawn nowhere."""
    if not isinstance(kind, str) or not _KIND_NAME.fullmatch(kind):
        raise ValueError(f"a display kind is a lower-case name of up to 40 letters, digits, '_' or '-', not {kind!r}")
    payload = {"data": data}
    if title is not None:
        payload["title"] = str(title)
    emit(kind, payload)


def show(obj, params=None) -> None:
    """Draw a graph (tensor, node, list of them) or a trace on the page: kael.viz.show."""
    import kael.viz

    install_display_hook()
    kael.viz.show(obj, params=params, caller=sys._getframe(1))  # names from the learner's variables


# ---------------------------------------------------------------------------- kael.viz hook


def _display(document: dict) -> None:
    """kael.viz's display hook: a document (kael/viz/SCHEMA.md) to the panel of its kind."""
    if document.get("kind") == "trace":
        _mark_trace_errors(document)
    display(document.get("kind"), document)


def _mark_trace_errors(document: dict) -> None:
    """A traced version error (the in-place example catches it) gets its lines as an uncaught
    one does: saved, modified, and the program's backward line."""
    for event in document.get("steps", ()):
        source = event.get("source") if event.get("kind") == "error" else None
        if source is not None and event.get("type") == "RuntimeError":
            line = source["line"] if source["filename"] == FILENAME else None
            event["marks"] = _version_marks(event["message"], line)


def install_display_hook() -> bool:
    """Route kael.viz.show to the page; False when this kael has no display hook."""
    try:
        import kael.viz as viz
    except ImportError:
        return False
    setter = getattr(viz, "set_display", None)
    if setter is None:
        return False
    setter(_display)
    record = getattr(viz, "record_modules", None)
    if record is not None:
        record()  # graphs draw nn.Module boxes: note which module call made each node
    return True


# ---------------------------------------------------------------------------- what a run shows by itself

# ---------------------------------------------------------------------------- running code


def _remember_source(code: str) -> None:
    lines = code.splitlines(keepends=True)
    linecache.cache[FILENAME] = (len(code), None, lines, FILENAME)


def _split_last_expression(code: str):
    tree = ast.parse(code, FILENAME, "exec")
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = ast.Expression(tree.body.pop().value)
        return compile(tree, FILENAME, "exec"), compile(last, FILENAME, "eval")
    return compile(tree, FILENAME, "exec"), None


_SAVED_AT = re.compile(r"saved by (\w+) at line (\d+): ")
_MODIFIED_AT = re.compile(r"modified at line (\d+): ")
_VERSIONS = re.compile(r"expected version (\d+), got (\d+)")


def _in_program(message: str, lineno: int) -> bool:
    """kael names a line as ``line N: text``; it is the editor's line N when the text is that."""
    text = linecache.getline(FILENAME, lineno).strip()
    return bool(text) and f"line {lineno}: {text}" in message


def _version_marks(message: str, lineno: int | None) -> list:
    """The in-place version error's three lines, where kael named them (set_detect_source):
    where the tensor was saved, where it was modified in place, and the backward that found it
    stale. ``[]`` for any other error."""
    versions = _VERSIONS.search(message)
    if versions is None:
        return []
    saved_version, version = int(versions.group(1)), int(versions.group(2))
    detail = {"saved_version": saved_version, "version": version}
    marks = []
    saved = _SAVED_AT.search(message)
    if saved and _in_program(message, int(saved.group(2))):
        marks.append({"line": int(saved.group(2)), "kind": "saved", "node": saved.group(1), **detail})
    modified = _MODIFIED_AT.search(message)
    if modified and _in_program(message, int(modified.group(1))):
        marks.append({"line": int(modified.group(1)), "kind": "modified", "node": None, **detail})
    if lineno is not None:
        marks.append({"line": lineno, "kind": "backward", "node": saved.group(1) if saved else None, **detail})
    return marks


def _error_data(exc: BaseException) -> dict:
    tb = exc.__traceback__
    # Drop this module's own frames: the learner's traceback starts at their code.
    while tb is not None and tb.tb_frame.f_code.co_filename != FILENAME:
        tb = tb.tb_next
    exc = exc.with_traceback(tb)
    te = traceback.TracebackException(type(exc), exc, tb, capture_locals=False)
    frames = [
        {"filename": f.filename, "lineno": f.lineno or 0, "name": f.name, "line": (f.line or "").strip()}
        for f in te.stack
    ]
    lineno = None
    for f in frames:
        if f["filename"] == FILENAME:
            lineno = f["lineno"]
    if isinstance(exc, SyntaxError) and exc.filename == FILENAME:
        lineno = exc.lineno
    return {
        "type": type(exc).__name__,
        "message": str(exc),
        "traceback": "".join(te.format()),
        "frames": frames,
        "lineno": lineno,
        "marks": _version_marks(str(exc), lineno) if isinstance(exc, RuntimeError) else [],
    }


def _auto_show(value, namespace=None) -> None:
    """The last expression's value, when it is a tensor in a graph, is drawn like show()."""
    try:
        import kael
    except ImportError:
        return
    if isinstance(value, kael.Tensor) and (value.grad_fn is not None or value.requires_grad):
        try:
            import kael.viz

            names = getattr(getattr(kael.viz, "names", None), "names_in", None)
            params = names(namespace) if names is not None and namespace is not None else None
            emit(KIND["graph"], {"data": kael.viz.graph(value, params=params)})
        except Exception:  # noqa: BLE001 - a drawing problem must not fail the run
            pass


def _detect_source(on: bool) -> bool:
    """kael names the lines of an in-place version error (saved here, modified here) when on;
    returns the previous setting."""
    try:
        from kael.autograd import set_detect_source
    except ImportError:
        return False
    return set_detect_source(on)


MAX_FORWARD_STEPS = 1000  # lines the stepper lists; a longer run is cut, with a note
# What the stepper keeps of a run, so that recording costs about what the run does and the
# document stays a few MB (tests/bench/forward_recording.py): the first backward passes only,
# none whose graph is larger than the page draws, and a few values a tensor (the page shows 12).
RECORD_LIMITS = {"max_passes": 3, "max_nodes": 2000, "max_values": 64}


class _Recording:
    """The stepper's recording of one run: the learner's lines (kael.viz.forward) and the first
    backward passes they run (kael.viz.trace), emitted as one document when the run ends."""

    def __init__(self, namespace: dict, code: str):
        import types

        import kael.viz

        limits = RECORD_LIMITS
        # The trace names tensors from the program's own variables, as show() does.
        scope = types.SimpleNamespace(f_locals=namespace, f_globals=namespace)
        self.trace = kael.viz.trace(caller=scope, max_values=limits["max_values"],
                                    max_passes=limits["max_passes"], max_nodes=limits["max_nodes"])
        self.forward = kael.viz.forward(FILENAME, max_steps=MAX_FORWARD_STEPS, max_values=limits["max_values"])
        self.source = code.splitlines()

    def __enter__(self):
        self.trace.__enter__()
        WATCH.over(self.trace)  # the loss curve still sees each backward while the trace records
        self.forward.__enter__()
        return self

    def __exit__(self, exc_type, exc, tb):
        self.forward.__exit__(exc_type, exc, tb)
        WATCH.over(None)
        self.trace.__exit__(exc_type, exc, tb)
        # With a backward pass, the stepper draws the trace's graph: the forward's own would be a
        # second copy (deep_chain: 30 MB of JSON with both, tests/bench/forward_recording.py).
        trace = self.trace
        traced = bool(trace.passes)
        document = self.forward.to_dict(with_graph=not traced)
        document["trace"] = trace.to_dict() if traced else None
        document["backward"] = {
            "traced": len(trace.passes),
            "untraced": trace.untraced,
            "largest_untraced": trace.largest_untraced,
            "max_passes": trace.max_passes,
            "max_nodes": trace.max_nodes,
            "during": trace.during,  # the forward step (and line) each traced pass ran in
        }
        document["stopped"] = exc_type is KeyboardInterrupt
        document["source"] = self.source  # the lines as run (the editor may change meanwhile)
        emit(KIND["forward"], {"data": document})
        return False


def _execute(code: str, namespace: dict):
    body, last = _split_last_expression(code)
    exec(body, namespace)
    return eval(last, namespace) if last is not None else None


def _fresh_main() -> dict:
    namespace = sys.modules["__main__"].__dict__
    namespace.clear()
    namespace.update({"__name__": "__main__", "__file__": FILENAME})
    return namespace


def run(request_json: str) -> str:
    """Run the editor's code as __main__; the last expression's repr is the result. The request:
    ``{"code", "detect_source": true, "record_forward": false}``."""
    request = json.loads(request_json)
    code = request["code"]
    started = time.perf_counter()
    _remember_source(code)
    namespace = _fresh_main()
    previous = _detect_source(request.get("detect_source", True))
    WATCH.start()
    try:
        if request.get("record_forward"):
            with _Recording(namespace, code):
                value = _execute(code, namespace)
        else:
            value = _execute(code, namespace)
        WATCH.finish()  # the last points of the loss curve, the final boundary
        shown = None
        if value is not None:
            shown = repr(value)
            _auto_show(value, namespace)
        result = {"ok": True, "value": shown}
    except BaseException as exc:  # noqa: BLE001 - KeyboardInterrupt and SystemExit are data too
        result = {"ok": False, "error": _error_data(exc)}
    finally:
        WATCH.stop()
        _detect_source(previous)
        sys.stdout.flush()
        sys.stderr.flush()
    result["duration_ms"] = (time.perf_counter() - started) * 1000
    return json.dumps(result, default=json_default)


def run_tests(request_json: str) -> str:
    """Run an exercise's public tests in-process with the exercise harness."""
    from playground_tests import run_public_tests

    started = time.perf_counter()
    request = json.loads(request_json)
    try:
        report = run_public_tests(request)
        result = {"report": report, "error": None}
    except BaseException as exc:  # noqa: BLE001
        result = {"report": None, "error": _error_data(exc)}
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
    result["duration_ms"] = (time.perf_counter() - started) * 1000
    return json.dumps(result, default=json_default)
