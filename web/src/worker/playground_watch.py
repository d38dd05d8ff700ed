"""What a run shows by itself, without the program asking (``playground.run`` starts and stops
it around each run): the loss per optimizer step, drawn live in the Plot tab whenever the program
calls an optimizer's ``step()`` after a ``backward()`` (the loss is the scalar that backward
started from), and how far kael's long operations are (``kael.utils.progress``: a large matmul),
on the page's progress bar. The two things a program may ask for are drawn from here too, since
they are sent at the same pace: ``playground.progress`` (``show_progress``) and
``playground.boundary`` (``declare_boundary``), live while it trains and once more at the end.

``WATCH`` is the one watch; ``playground`` imports it and the two functions, nothing else.
"""

from __future__ import annotations

import math
import time

from playground_emit import KIND, emit, finite

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
            emit(self.kind, payload)


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
        WATCH.tick(now)


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
        emit(KIND["boundary"], {"data": {"box": list(self.box), "grid": n, "classes": classes, "points": self.points,
                                          "steps": WATCH.steps(), "final": final}})
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
            run["new"].append([run["steps"], None if self.loss is None else finite(self.loss)])
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
            emit(KIND["loss"], {"data": {"runs": fresh}})
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


WATCH = _Watch()


def show_progress(value: float, total: float, label: str) -> None:
    """playground.progress: the bar at value / total (throttled; the last, value >= total, goes
    at once), and whatever else is due."""
    _PROGRAM_PROGRESS.offer({"value": value, "total": total, "label": label}, final=value >= total)
    WATCH.tick(time.monotonic())


# playground.boundary: check and keep the model, points and rule, and draw them now (the bound
# method itself: a learner's traceback gets no extra frame).
declare_boundary = _BOUNDARY.declare
