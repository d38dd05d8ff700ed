"""The playground's side of the worker: runs the editor's code and returns plain data.

User code may import this module to draw on the page while it runs::

    import playground
    playground.plot("loss", step, loss.item())   # one point of a live line plot
    playground.progress(step, steps, "training") # a progress bar

``kael.viz.show(t)`` and ``kael.viz.trace()`` reach the page through kael.viz's display hook,
installed by ``install_display_hook``. Every function here returns JSON text; errors are data.
"""

from __future__ import annotations

import ast
import json
import linecache
import math
import sys
import time
import traceback
from pathlib import Path

import _kael_worker  # registered by worker.ts: emit(kind, json_text)

FILENAME = "main.py"
# The display kinds the page draws, shared with protocol.ts (the worker writes the file here).
KIND: dict[str, str] = json.loads(Path(__file__).with_name("display_kinds.json").read_text())
__all__ = ["plot", "progress", "show"]


def _emit(kind: str, payload: dict) -> None:
    _kael_worker.emit(kind, json.dumps(payload, default=_json_default, allow_nan=False))


def _json_default(value):
    if isinstance(value, float):
        return None
    if hasattr(value, "tolist"):
        return value.tolist()
    return repr(value)


def _finite(value) -> float | None:
    value = float(value)
    return value if math.isfinite(value) else None


# ---------------------------------------------------------------------------- user-facing API


def plot(series: str, x, y, xlabel: str = "step") -> None:
    """Add the point (x, y) to the live line plot named `series`; `xlabel` names the x axis (the
    y axis is named by the series)."""
    y = _finite(y.item() if hasattr(y, "item") else y)
    _emit(KIND["plot"], {"series": str(series), "x": float(x), "y": y, "xlabel": str(xlabel)})


def progress(value, total, label: str = "") -> None:
    """Show a progress bar at value / total."""
    _emit(KIND["progress"], {"value": float(value), "total": float(total), "label": str(label)})


def show(obj, params=None) -> None:
    """Draw a graph (tensor, node, list of them) or a trace on the page: kael.viz.show."""
    import kael.viz

    install_display_hook()
    kael.viz.show(obj, params=params, caller=sys._getframe(1))  # names from the learner's variables


# ---------------------------------------------------------------------------- kael.viz hook


def _display(document: dict) -> None:
    """kael.viz's display hook: a graph or trace document (kael/viz/SCHEMA.md) to the page."""
    kind = document.get("kind")
    if kind not in (KIND["graph"], KIND["trace"], KIND["memory"]):
        raise ValueError(f"kael.viz.show gave a document of unknown kind {kind!r}")
    _emit(kind, {"data": document})


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
            _emit(KIND["graph"], {"data": kael.viz.graph(value, params=params)})
        except Exception:  # noqa: BLE001 - a drawing problem must not fail the run
            pass


def run(code: str) -> str:
    """Run the editor's code as __main__; the last expression's repr is the result."""
    started = time.perf_counter()
    _remember_source(code)
    namespace = {"__name__": "__main__", "__file__": FILENAME}
    sys.modules["__main__"].__dict__.clear()
    sys.modules["__main__"].__dict__.update(namespace)
    namespace = sys.modules["__main__"].__dict__
    try:
        body, last = _split_last_expression(code)
        exec(body, namespace)
        value = eval(last, namespace) if last is not None else None
        shown = None
        if value is not None:
            shown = repr(value)
            _auto_show(value, namespace)
        result = {"ok": True, "value": shown}
    except BaseException as exc:  # noqa: BLE001 - KeyboardInterrupt and SystemExit are data too
        result = {"ok": False, "error": _error_data(exc)}
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
    result["duration_ms"] = (time.perf_counter() - started) * 1000
    return json.dumps(result, default=_json_default)


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
    return json.dumps(result, default=_json_default)
