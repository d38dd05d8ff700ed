"""``kael.viz.trace()``: a recorder of the engine's own steps during a backward pass.

The engine (``kael/autograd/engine.py``) calls the installed tracer at each point of ADR 0005's
process step; this recorder turns those calls into JSON-able events that reference the node ids
of the graph it captures when the pass starts (the same walk as ``kael.viz.graph``). SCHEMA.md
describes every field.
"""

from __future__ import annotations

from ..autograd import engine
from ..autograd.node import AccumulateGrad
from ..autograd.source import here
from .forward import running_step
from .names import caller_frame, caller_names, merge_names
from .walk import MAX_VALUES, SCHEMA_VERSION, build, grads_of, tensor_data

__all__ = ["trace", "Trace"]


def _error_data(exc, node_id) -> dict:
    return {"type": type(exc).__name__, "message": str(exc), "node": node_id}


class Trace:
    """Records every backward pass run inside ``with kael.viz.trace() as tr:``.

    ``tr.steps``: the events of all passes, in order (``start``, then one ``step`` or ``skip``
    per node the engine pops, or an ``error``); ``tr.graph``: the graph captured when the last
    pass started; ``tr.passes``: one record per pass; ``tr.to_dict()``: all of it as JSON-able
    data; ``tr.table()``: the steps as ADR 0005's worked-example table.
    """

    def __init__(self, params=None, max_values=MAX_VALUES, caller=None, max_passes=None, max_nodes=None):
        self.params = params
        self.max_passes = max_passes  # passes traced; later ones run untraced (``untraced``)
        self.max_nodes = max_nodes  # a pass whose graph has more nodes runs untraced
        self.untraced = 0  # passes that ran past the caps, not traced
        self.largest_untraced = 0  # nodes of the largest pass left untraced for its size
        self._skipping = False  # the pass running now is not traced
        self.during = []  # per traced pass: the forward recording's step running it, or None
        self._caller = caller  # the frame whose variables name tensors, until the block ends
        self._built = None  # the pass graph's listed tensors, to refresh their grads at its end
        self.max_values = max_values
        self.passes = []
        self.steps = []
        self.error = None
        self._previous = None
        self._ids = None  # node -> id, during a pass
        self._buffered = None  # nodes holding a gradient buffer, during a pass
        self._event = None  # the step being recorded
        self._saved_names = ()
        self._count = 0

    # -- context manager ------------------------------------------------------------------------
    def __enter__(self):
        self._previous = engine.set_tracer(self)
        return self

    def __exit__(self, exc_type, exc, tb):
        engine.set_tracer(self._previous)
        self._previous = None
        self._caller = None
        if exc is not None and self.error is None:
            self.error = _error_data(exc, None)
        return False

    # -- results --------------------------------------------------------------------------------
    @property
    def graph(self):
        """The graph captured at the start of the last pass (``None`` before any pass)."""
        return self.passes[-1]["graph"] if self.passes else None

    def to_dict(self) -> dict:
        """The trace document (SCHEMA.md); it shares its lists with ``tr.steps`` and
        ``tr.passes``, so treat it as read-only."""
        return {
            "version": SCHEMA_VERSION,
            "kind": "trace",
            "passes": self.passes,
            "steps": self.steps,
            "error": self.error,
        }

    def table(self, pass_index=None) -> str:
        from .text import trace_table

        return trace_table(self.to_dict(), pass_index)

    def __repr__(self):
        return f"<kael.viz.Trace: {len(self.passes)} passes, {len(self.steps)} events>"

    # -- the engine's tracer protocol -------------------------------------------------------------
    def _data(self, t):
        return None if t is None else tensor_data(t, self.max_values)

    def _over_caps(self, root_nodes, deps) -> bool:
        """This pass is past ``max_passes``, or its graph has more than ``max_nodes`` nodes (the
        engine's dependency counts name every node it reaches, so this costs no walk)."""
        if self.max_passes is not None and len(self.passes) >= self.max_passes:
            return True
        if self.max_nodes is None:
            return False
        size = len(deps) + sum(1 for n in set(root_nodes) if n is not None and n not in deps)
        if size > self.max_nodes:
            self.largest_untraced = max(self.largest_untraced, size)
            return True
        return False

    def on_start(self, root_nodes, seeds, deps, roots, ready):
        if self._over_caps(root_nodes, deps):
            self._skipping = True
            self.untraced += 1
            return
        self.during.append(running_step())
        params = merge_names(self.params, caller_names(self._caller))
        built = build(list(roots), list(root_nodes), params, self.max_values)
        graph, ids = built.data, built.ids
        self._built = built
        self._ids = ids
        self._buffered = set(root_nodes)
        self._count = 0
        index = len(self.passes)
        self.passes.append({"index": index, "graph": graph, "completed": False, "error": None, "grads": None})
        self.steps.append({
            "kind": "start",
            "pass": index,
            "seeds": [{"node": ids[n], "grad": self._data(g)} for n, g in zip(root_nodes, seeds)],
            "counts": {ids[n]: deps.get(n, 0) for n in ids},
            "ready": [ids[n] for n in ready],
        })

    def _begin(self, kind, node, grad):
        self._count += 1
        self._event = {
            "kind": kind,
            "pass": len(self.passes) - 1,
            "step": self._count,
            "node": self._ids[node],
            "grad": self._data(grad),
            "reason": None,
            "hooks": [],
            "captured": None,
            "accumulated": None,
            "sends": [],
            "ready": [],
            "released": False,
            "released_saved": [],
        }

    def on_node(self, node, grad):
        if self._skipping:
            return
        self._buffered.discard(node)
        if isinstance(node, AccumulateGrad):
            self._saved_names = []
        else:
            self._saved_names = [name for name, _ in node.saved_tensor_records()]
        self._begin("step", node, grad)

    def on_skip(self, node):
        if self._skipping:
            return
        had_buffer = node in self._buffered
        self._buffered.discard(node)
        self._saved_names = []
        self._begin("skip", node, None)
        self._event["reason"] = "not needed" if had_buffer else "no gradient"

    def on_hooks(self, node, kind, n, result):
        if self._skipping:
            return
        grads = [result] if kind == "pre" else list(result)
        self._event["hooks"].append({"kind": kind, "count": n, "grads": [self._data(g) for g in grads]})

    def on_capture(self, node, input_indices, grad):
        if self._skipping:
            return
        self._event["captured"] = {"inputs": list(input_indices), "grad": self._data(grad)}

    def on_accumulate(self, node, grad):
        if self._skipping:
            return
        meta = node.variable._meta
        if meta is not None and meta.hooks:
            self._event["hooks"].append({"kind": "tensor", "count": len(meta.hooks), "grads": []})
        self._event["accumulated"] = self._data(grad)

    def on_send(self, node, input_nr, target, grad, buffer_after, count_before, count_after, became_ready):
        if self._skipping:
            return
        added = grad is not None and target in self._buffered
        if grad is not None:
            self._buffered.add(target)
        self._event["sends"].append({
            "input_nr": input_nr,
            "to": self._ids[target],
            "grad": self._data(grad),
            "added": added,
            "buffer": self._data(buffer_after),
            "count_before": count_before,
            "count_after": count_after,
            "ready": became_ready,
        })

    def on_step_end(self, node, ready_stack, released):
        if self._skipping:
            return
        event = self._event
        event["ready"] = [self._ids[n] for n in ready_stack]
        if released and event["kind"] == "step" and not isinstance(node, AccumulateGrad):
            event["released"] = True
            event["released_saved"] = self._saved_names
        self.steps.append(event)
        self._event = None

    def on_error(self, node, exc):
        if self._skipping:
            return
        node_id = self._ids.get(node) if node is not None else None
        event = self._event
        error = _error_data(exc, node_id)
        where = here()  # the learner's line that ran this backward
        self.steps.append({
            "kind": "error",
            "pass": len(self.passes) - 1,
            "step": event["step"] if event is not None else self._count + 1,
            "node": node_id,
            "grad": event["grad"] if event is not None else None,
            "type": error["type"],
            "message": error["message"],
            "source": {"filename": where[0], "line": where[1]} if where is not None else None,
        })
        self._event = None
        self.passes[-1]["error"] = error
        if self.error is None:
            self.error = error

    def on_end(self):
        if self._skipping:
            self._skipping = False
            return
        self.passes[-1]["completed"] = self.passes[-1]["error"] is None
        # The graph stays as it was when the pass started (a view replaying step 0 must not show
        # a gradient the pass has yet to make); what the tensors hold now goes beside it.
        self.passes[-1]["grads"] = grads_of(self._built.data["tensors"], self._built.tensors, self.max_values)
        self._built = None
        self._ids = None
        self._buffered = None
        self._event = None
        self._saved_names = ()


def trace(params=None, max_values=MAX_VALUES, *, caller=None, max_passes=None, max_nodes=None) -> Trace:
    """``with kael.viz.trace(params=dict(x=x)) as tr: loss.backward()`` records the engine's steps.

    ``params`` names tensors as in ``kael.viz.graph``; tensors it does not name are named, where
    unambiguous, by the variables of the caller (``caller``, by default the frame calling
    ``trace``) as they are when each pass starts. Node ids match ``graph()`` of the same roots.
    ``max_passes`` and ``max_nodes`` bound what is kept: passes past the first ``max_passes``,
    and passes whose graph has more than ``max_nodes`` nodes, run untraced (``tr.untraced``
    counts them, ``tr.largest_untraced`` is the largest such graph's size).
    """
    frame = caller if caller is not None else caller_frame()
    return Trace(params, max_values, frame, max_passes=max_passes, max_nodes=max_nodes)
