"""The playground's side of the worker: runs the editor's code and returns plain data.

User code may import this module to draw on the page while it runs::

    import playground
    playground.plot("loss", step, loss.item())   # one point of a live line plot
    playground.progress(step, steps, "training") # the progress bar: what it counts, how far
    playground.boundary(model, X, Y)             # shade a 2-D classifier's predicted class

Without any of that, a run shows two things by itself (``_Watch``): the loss per optimizer
step, drawn live in the Plot tab whenever the program calls an optimizer's ``step()`` after a
``backward()`` (the loss is the scalar that backward started from), and how far kael's long
operations are (``kael.utils.progress``: a large matmul), on the page's progress bar.
``kael.viz.show(t)`` and ``kael.viz.trace()`` reach the page through kael.viz's display hook,
installed by ``install_display_hook``. Every function here returns JSON text; errors are data.
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
from pathlib import Path

import _kael_worker  # registered by worker.ts: emit(kind, json_text)

FILENAME = "main.py"
# The display kinds the page draws, shared with protocol.ts (the worker writes the file here).
KIND: dict[str, str] = json.loads(Path(__file__).with_name("display_kinds.json").read_text())
__all__ = ["boundary", "display", "plot", "progress", "show"]
# What worker.ts accepts as a kind (its DISPLAY_KIND_NAME).
_KIND_NAME = re.compile(r"[a-z][a-z0-9_-]{0,39}")


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
    """Show the page's progress bar at value / total; `label` says what is counted ("training
    steps"). Call it as often as you like: the page hears of it a few times a second, and the bar
    goes when the run ends."""
    value, total = float(value), float(total)
    if not (math.isfinite(value) and math.isfinite(total)):
        raise ValueError(f"progress takes finite numbers, not {value!r} of {total!r}")
    _PROGRAM_PROGRESS.offer({"value": value, "total": total, "label": str(label)},
                            final=value >= total)
    _WATCH.tick(time.monotonic())


def boundary(model, points, labels=None, threshold: float = 0.0) -> None:
    """Shade what `model` predicts over the box of `points` in the Plot tab, with the points on
    it: now, while the program trains (about every second) and when the run ends.

    `points` is an (N, 2) tensor of 2-D inputs, `labels` their N classes (optional). The model
    maps (M, 2) points to one score each, shape (M,) or (M, 1), class 1 where the score is above
    `threshold` (0 for logits, 0.5 for probabilities), or to (M, C) scores, the class their
    argmax. This is the one rule: a program asks for a boundary by calling this."""
    _BOUNDARY.declare(model, points, labels, threshold)


def display(kind: str, data, title: str | None = None) -> None:
    """Send `data` (JSON data) to the page's panel that draws `kind`: each panel in
    web/src/panels/ names the kinds it draws, and a kind no panel draws is drawn nowhere."""
    if not isinstance(kind, str) or not _KIND_NAME.fullmatch(kind):
        raise ValueError(f"a display kind is a lower-case name of up to 40 letters, digits, '_' or '-', not {kind!r}")
    payload = {"data": data}
    if title is not None:
        payload["title"] = str(title)
    _emit(kind, payload)


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

SHOW_EVERY_S = 0.25  # the page hears of progress and new loss points at most this often
KAEL_BAR_AFTER_S = 0.3  # a kael operation gets a bar once it has run this long
BOUNDARY_GRID = 32  # cells a side of the decision-boundary shading
BOUNDARY_POINTS = 2000  # data points drawn on it at most
BOUNDARY_SHARE = 0.1  # live redraws of the boundary take at most this share of the run


class _Throttle:
    """Sends the newest payload it is offered: the first at once, then at most every
    SHOW_EVERY_S; one left pending goes with the next offer or tick after that."""

    def __init__(self, kind: str):
        self.kind = kind
        self.reset()

    def reset(self) -> None:
        self.pending = None
        self.sent_at = -math.inf

    def offer(self, payload: dict, final: bool = False) -> None:
        self.pending = payload
        now = time.monotonic()
        if final or now - self.sent_at >= SHOW_EVERY_S:
            self.flush(now)

    def tick(self, now: float) -> None:
        if self.pending is not None and now - self.sent_at >= SHOW_EVERY_S:
            self.flush(now)

    def flush(self, now: float) -> None:
        if self.pending is not None:
            payload, self.pending = self.pending, None
            self.sent_at = now
            _emit(self.kind, payload)


_PROGRAM_PROGRESS = _Throttle(KIND["progress"])


class _KaelProgress:
    """kael.utils.progress's reporter: an operation that has run KAEL_BAR_AFTER_S gets the bar's
    second row (what it counts, how far), throttled; its last report (done == total) ends it."""

    def __init__(self):
        self.throttle = _Throttle(KIND["progress"])
        self.op = None
        self.started = 0.0
        self.done = 0
        self.shown = False

    def __call__(self, done, total, what) -> None:
        now = time.monotonic()
        if (total, what) != self.op or done < self.done:
            self.op, self.started, self.shown = (total, what), now, False
        self.done = done
        payload = {"value": float(done), "total": float(total), "label": str(what), "source": "kael"}
        if done >= total:
            self.op, self.done = None, 0
            if self.shown:
                self.throttle.offer(payload, final=True)
            self.throttle.pending = None
        elif now - self.started >= KAEL_BAR_AFTER_S:
            self.shown = True
            self.throttle.offer(payload)
        _WATCH.tick(now)


class _Boundary:
    """playground.boundary's model, points and rule, drawn when declared, live while the
    program trains (as long as redrawing stays under BOUNDARY_SHARE of the time) and at the end."""

    def __init__(self):
        self.reset()

    def reset(self) -> None:
        self.model = None
        self.drawn_at = 0.0
        self.cost = 0.0

    def declare(self, model, points, labels, threshold) -> None:
        import kael

        if not callable(model):
            raise TypeError(f"boundary's model is something to call on points, not {type(model).__name__}")
        if not isinstance(points, kael.Tensor) or points.ndim != 2 or points.shape[1] != 2 or not points.shape[0]:
            shape = list(points.shape) if isinstance(points, kael.Tensor) else type(points).__name__
            raise ValueError(f"boundary's points are an (N, 2) tensor of 2-D inputs, not {shape}")
        rows = points.detach().tolist()
        classes = None
        if labels is not None:
            if not isinstance(labels, kael.Tensor) or labels.numel() != len(rows):
                got = labels.numel() if isinstance(labels, kael.Tensor) else type(labels).__name__
                raise ValueError(f"boundary's labels are a tensor of one class per point ({len(rows)}), not {got}")
            classes = [int(v) for v in labels.detach().reshape(-1).tolist()]
        self.model, self.dtype, self.threshold = model, points.dtype, float(threshold)
        self.box = _box(rows)
        step = max(1, len(rows) // BOUNDARY_POINTS)
        self.points = [[x, y, None if classes is None else classes[i]] for i, (x, y) in enumerate(rows)][::step]
        self.draw(final=False)  # a model or rule that does not fit fails here, at the learner's line

    def due(self, now: float) -> bool:
        return self.model is not None and now - self.drawn_at >= max(1.0, self.cost / BOUNDARY_SHARE)

    def draw(self, final: bool) -> None:
        started = time.monotonic()
        x0, x1, y0, y1 = self.box
        n = BOUNDARY_GRID
        grid = [[x0 + (i + 0.5) * (x1 - x0) / n, y0 + (j + 0.5) * (y1 - y0) / n] for j in range(n) for i in range(n)]
        classes = _predict(self.model, grid, self.dtype, self.threshold)
        _emit(KIND["boundary"], {"data": {"box": list(self.box), "grid": n, "classes": classes, "points": self.points,
                                          "steps": _WATCH.steps(), "final": final}})
        self.drawn_at = time.monotonic()
        self.cost = self.drawn_at - started


def _box(rows: list) -> tuple:
    """The points' box, a tenth wider each way (a unit wide where they do not spread)."""
    xs, ys = [r[0] for r in rows], [r[1] for r in rows]
    box = []
    for lo, hi in ((min(xs), max(xs)), (min(ys), max(ys))):
        pad = (hi - lo) * 0.1 or 0.5
        box += [lo - pad, hi + pad]
    return tuple(box)


def _predict(model, grid: list, dtype, threshold: float) -> list:
    """The class `model` gives each grid point, under no_grad and in eval mode (put back after)."""
    import kael

    modes = [(m, m.training) for m in model.modules()] if isinstance(model, kael.nn.Module) else []
    for m, _ in modes:
        m.training = False
    try:
        with kael.no_grad():
            out = model(kael.tensor(grid, dtype=dtype))
    finally:
        for m, training in modes:
            m.training = training
    shape = list(out.shape)
    if len(shape) == 1 or (len(shape) == 2 and shape[1] == 1):
        return [int(v > threshold) for v in out.reshape(-1).tolist()]
    if len(shape) == 2 and shape[1] >= 2:
        return [max(range(len(row)), key=row.__getitem__) for row in out.tolist()]
    raise ValueError(f"boundary's model maps (M, 2) points to one score each, (M,) or (M, 1), or to (M, C) "
                     f"class scores; for {len(grid)} points it gave {shape}")


_BOUNDARY = _Boundary()


class _Watch:
    """What a run shows without being asked, installed for the run by start() and removed by
    stop(): the loss per optimizer step and the progress of kael's long operations.

    The loss: kael's engine tells its tracer the tensors each top-level backward starts from
    (kael/autograd/tracer.py); the watch's tracer notes a scalar one, and a global optimizer
    step post hook (kael.optim.optimizer.register_optimizer_step_post_hook) adds a point
    (optimizer's step index from 0, that loss) when a backward ran since that optimizer's last
    step. Each optimizer is its own series, named by its class and the order it first stepped.
    """

    def __init__(self):
        self.active = self.recording = False
        self.undo = []

    def start(self) -> None:
        self.active = False
        self.seq, self.loss, self.runs, self.loss_sent_at = 0, None, {}, -math.inf
        _PROGRAM_PROGRESS.reset()
        _BOUNDARY.reset()
        try:
            from kael.autograd import engine
            from kael.autograd.tracer import NO_TRACER, NoTracer
            from kael.optim.optimizer import register_optimizer_step_post_hook
            from kael.utils import progress as kael_progress
        except ImportError:  # an older kael: the run shows only what it asks for
            return
        self.engine, self.no_tracer = engine, NO_TRACER
        self.protocol = [name for name in vars(NoTracer) if name.startswith("on_")]
        self.kael_progress = _KaelProgress()
        previous_reporter = kael_progress.set_reporter(self.kael_progress)
        self.undo = [lambda: kael_progress.set_reporter(previous_reporter),
                     register_optimizer_step_post_hook(self.on_step).remove]
        previous_tracer = engine.set_tracer(self.tracer_over(NO_TRACER))
        self.undo.append(lambda: engine.set_tracer(previous_tracer))
        self.active = True

    def tracer_over(self, inner):
        """A tracer that is `inner` (the same bound methods: no extra call per engine step) but
        for on_start, which notes the loss first."""
        tracer = _Tracer()
        for name in self.protocol:
            setattr(tracer, name, getattr(inner, name))

        def on_start(root_nodes, seeds, deps, roots, ready):
            self.seq += 1
            self.loss = _scalar(roots)
            inner.on_start(root_nodes, seeds, deps, roots, ready)

        tracer.on_start = on_start
        return tracer

    def over(self, trace) -> None:
        """The stepper's trace records backward passes (or, None, stopped): watch through it."""
        self.recording = trace is not None
        if self.active:
            self.engine.set_tracer(self.tracer_over(trace) if trace is not None else trace)

    def on_step(self, optimizer, args, kwargs) -> None:
        run = self.runs.get(id(optimizer))
        if run is None:
            run = self.runs[id(optimizer)] = {"optimizer": optimizer, "id": len(self.runs),
                                             "name": type(optimizer).__name__, "steps": 0, "seen": 0, "new": []}
        if self.seq > run["seen"]:
            run["seen"] = self.seq
            run["new"].append([run["steps"], None if self.loss is None else _finite(self.loss)])
        run["steps"] += 1
        self.tick(time.monotonic())

    def steps(self) -> int:
        """Steps taken by the first optimizer that stepped (0 before any)."""
        return next(iter(self.runs.values()))["steps"] if self.active and self.runs else 0

    def tick(self, now: float) -> None:
        """Send what is due: progress, new loss points, a live boundary."""
        if not self.active:
            return
        _PROGRAM_PROGRESS.tick(now)
        self.kael_progress.throttle.tick(now)
        if now - self.loss_sent_at >= SHOW_EVERY_S:
            self.send_losses(now)
        if _BOUNDARY.due(now) and not self.recording:  # the stepper would record its forward too
            _BOUNDARY.draw(final=False)

    def send_losses(self, now: float) -> None:
        fresh = [{"id": r["id"], "name": r["name"], "points": r["new"]} for r in self.runs.values() if r["new"]]
        if fresh:
            _emit(KIND["loss"], {"data": {"runs": fresh}})
            for r in self.runs.values():
                r["new"] = []
            self.loss_sent_at = now

    def finish(self) -> None:
        """The run ended well: the last loss points and the final boundary."""
        if not self.active:
            return
        self.send_losses(time.monotonic())
        if _BOUNDARY.model is not None:
            try:
                _BOUNDARY.draw(final=True)
            except Exception:  # noqa: BLE001 - it drew when declared; a later failure must not fail the run
                pass

    def stop(self) -> None:
        """The run is over, however it ended: the last loss points, then every hook removed."""
        if self.active:
            self.send_losses(time.monotonic())
        for undo in reversed(self.undo):
            undo()
        self.undo, self.runs, self.active = [], {}, False
        _BOUNDARY.reset()


def _scalar(roots):
    """The value of the one scalar a backward starts from (None for anything else)."""
    try:
        if len(roots) == 1 and roots[0].numel() == 1:
            return float(roots[0].item())
    except Exception:  # noqa: BLE001 - watching a backward must never fail it
        pass
    return None


class _Tracer:
    """A tracer assembled from another's methods (``_Watch.tracer_over``)."""


_WATCH = _Watch()


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
            _emit(KIND["graph"], {"data": kael.viz.graph(value, params=params)})
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
        _WATCH.over(self.trace)  # the loss curve still sees each backward while the trace records
        self.forward.__enter__()
        return self

    def __exit__(self, exc_type, exc, tb):
        self.forward.__exit__(exc_type, exc, tb)
        _WATCH.over(None)
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
        _emit(KIND["forward"], {"data": document})
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
    _WATCH.start()
    try:
        if request.get("record_forward"):
            with _Recording(namespace, code):
                value = _execute(code, namespace)
        else:
            value = _execute(code, namespace)
        _WATCH.finish()  # the last points of the loss curve, the final boundary
        shown = None
        if value is not None:
            shown = repr(value)
            _auto_show(value, namespace)
        result = {"ok": True, "value": shown}
    except BaseException as exc:  # noqa: BLE001 - KeyboardInterrupt and SystemExit are data too
        result = {"ok": False, "error": _error_data(exc)}
    finally:
        _WATCH.stop()
        _detect_source(previous)
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
