"""``kael.viz.forward()``: the forward pass of one program file, recorded line by line.

``with kael.viz.forward("main.py") as rec: exec(code, namespace)`` notes, after every line of
that file runs, the local variables that hold tensors (shape, dtype, ``requires_grad``,
``grad_fn``, version) and the graph nodes the line recorded, with the tensors they saved for
backward and the bytes those hold. Nodes are found by walking back from the locals' ``grad_fn``
over nodes not seen yet, so a line costs a look at its frame's locals plus its own new nodes.
Lines of other files (kael, the standard library) are not stepped; what they record is the line
of the file that called them.

The recording is bounded: past ``max_steps`` lines or ``max_nodes`` nodes it stops listing
(``truncated``, ``cut_by``, with the line it stopped at) and stops watching, and keeps the
graph as it stood then; a graph of more than ``MAX_GRAPH_NODES`` nodes is left out. A step's
``held_bytes`` is what the recorded nodes' saved tensors hold after that line: a node's bytes
count until a backward pass releases them or the node is freed. Python 3.12+ watches with ``sys.monitoring`` (the
browser's Pyodide runs 3.14), older Pythons with ``sys.settrace``. ``kael.viz.graph`` and
``trace`` graphs made while a recording is active mark each node with where it was recorded
(``node["recorded"]``), so a backward trace and the forward steps share one graph.
SCHEMA.md (``kind: "forward"``) describes every field.
"""

from __future__ import annotations

import weakref

from ..autograd.node import AccumulateGrad
from ..tensor import Tensor
from . import watch

__all__ = ["forward", "ForwardRecording", "recorded_at", "running_step", "MAX_STEPS"]

MAX_STEPS = 2000  # lines listed per recording; beyond, ``truncated``
MAX_NODES = 5000  # nodes listed per recording; beyond, ``truncated`` too
MAX_GRAPH_NODES = 2000  # a graph larger than this is left out of the document (``graph_nodes``)
MAX_LOCALS = 40  # tensor locals listed per step

_active = None  # the recording whose node marks graphs read (the latest one entered)


def recorded_at(node):
    """``{"order", "step", "line"}`` for a node the active recording saw being recorded."""
    if _active is None:
        return None
    try:
        return _active._nodes.get(node)
    except TypeError:  # not weak-referenceable
        return None


def running_step():
    """``{"step", "line"}`` of the line the active recording's file is running now (the step it
    will be once it finishes; a backward pass started by it runs during that step), else None."""
    rec = _active
    if rec is None or rec.truncated or not rec._pending:
        return None
    line = next(reversed(rec._pending.values()))  # the innermost frame of the file
    return {"step": len(rec.steps) + 1, "line": line}


def _node_of(t):
    """``t.grad_fn``, or a leaf's AccumulateGrad once an op has made one (never made here)."""
    if t.grad_fn is not None:
        return t.grad_fn
    meta = t._meta
    ref = getattr(meta, "accumulator", None) if meta is not None else None
    return ref() if ref is not None else None


def _size(roots, limit) -> int:
    """Nodes reachable from ``roots``, counted up to ``limit``."""
    seen = set(roots)
    stack = list(seen)
    while stack and len(seen) < limit:
        for ni in stack.pop().inputs:
            if ni.edge is not None and ni.edge not in seen:
                seen.add(ni.edge)
                stack.append(ni.edge)
    return min(len(seen), limit)


def _local_entry(name, t, order_of) -> dict:
    fn = t.grad_fn
    node = _node_of(t)
    mark = order_of(node) if node is not None else None
    return {
        "name": name,
        "shape": [int(s) for s in t.shape],
        "dtype": t.dtype.name,
        "requires_grad": t.requires_grad,
        "is_leaf": t.is_leaf,
        "grad_fn": fn.name() if fn is not None else None,
        "node": mark,
        "version": t._storage.version,
    }


class ForwardRecording:
    """The steps of one ``with kael.viz.forward(filename) as rec:`` block."""

    def __init__(self, filename, max_steps=MAX_STEPS, max_nodes=MAX_NODES, max_values=None):
        self.filename = filename
        self.max_values = max_values  # values kept per tensor of the graph (None: walk's default)
        self.graph_nodes = 0  # nodes of the graph the document carries (or left out, if too many)
        self.max_steps = max_steps
        self.max_nodes = max_nodes
        self.steps = []
        self.truncated = False
        self.cut_by = None  # "steps" or "nodes": the cap that cut the recording
        self.stopped_at = None  # the line at which the cap cut the recording
        self.held_bytes = 0  # bytes saved by recorded nodes that are alive and not released
        self._holding = {}  # id(node) -> (weak reference, saved bytes) of those nodes
        self._snapshot = None  # the graph as it stood when a cap cut the recording
        self._nodes = weakref.WeakKeyDictionary()  # node -> {"order", "step", "line"}
        self._count = 0
        self._pending = {}  # frame -> the line of it that is running
        self._names = []  # (name, tensor) of the latest top-level step
        self._watch = None
        self._previous = None

    # -- context manager ------------------------------------------------------------------------
    def __enter__(self):
        global _active
        self._previous, _active = _active, self
        self._watch = watch.start(self.filename, self._line, self._leave)
        return self

    def __exit__(self, *exc):
        global _active
        self._stop()
        for frame, line in list(self._pending.items()):
            self._close(frame, line)
        self._pending.clear()
        _active = self._previous
        return False

    def _stop(self):
        if self._watch is not None:
            self._watch.stop()
            self._watch = None

    # -- the watcher's callbacks ------------------------------------------------------------------
    def _line(self, frame, line):
        """``line`` of ``frame`` is about to run: the line it ran before has finished."""
        before = self._pending.get(frame)
        self._pending[frame] = line
        if before is not None:
            self._close(frame, before)

    def _leave(self, frame):
        line = self._pending.pop(frame, None)
        if line is not None:
            self._close(frame, line)

    def _close(self, frame, line):
        if self.truncated:
            return
        if len(self.steps) >= self.max_steps:
            return self._cut("steps", line)
        self.steps.append(self._step(frame, line))
        if self._count >= self.max_nodes:
            self._cut("nodes", line)

    def _cut(self, by, line):
        """Stop recording; the graph is kept as it stands now (the program may drop it later)."""
        self.truncated = True
        self.cut_by = by
        self.stopped_at = line
        self._stop()
        self._snapshot = self._graph(self.max_values)

    # -- one step -------------------------------------------------------------------------------
    def _step(self, frame, line) -> dict:
        index = len(self.steps) + 1
        tensors = [(n, v) for n, v in list(frame.f_locals.items()) if isinstance(v, Tensor) and not n.startswith("_")]
        if frame.f_code.co_name == "<module>":
            self._names = tensors  # what names the graph's tensors
        new, saved = [], []
        for _, t in tensors:
            self._discover(t, index, line, new, saved)
        self._release_freed()
        order_of = self._order
        return {
            "step": index,
            "line": line,
            "function": frame.f_code.co_name,
            "locals": [_local_entry(n, t, order_of) for n, t in tensors[:MAX_LOCALS]],
            "more_locals": max(0, len(tensors) - MAX_LOCALS),
            "nodes": new,
            "saved": saved,
            "held_bytes": self.held_bytes,
        }

    def _order(self, node):
        mark = self._nodes.get(node)
        return mark["order"] if mark is not None else None

    def _discover(self, t, index, line, new, saved):
        """Note every node behind ``t`` not seen yet as recorded by this step."""
        root = _node_of(t)
        stack = [root] if root is not None and root not in self._nodes else []
        while stack:
            node = stack.pop()
            if node in self._nodes:
                continue
            mark = {"order": self._count, "step": index, "line": line}
            self._count += 1
            self._nodes[node] = mark
            new.append({"order": mark["order"], "name": node.name()})
            if not isinstance(node, AccumulateGrad):
                self._hold(node, mark["order"], saved)
            if self._count >= self.max_nodes:
                return
            stack.extend(ni.edge for ni in node.inputs if ni.edge is not None and ni.edge not in self._nodes)

    def _hold(self, node, order, saved):
        """List the tensors ``node`` saved; their bytes count as held until it lets them go."""
        total = 0
        for name, s in node.saved_tensor_records():
            saved.append({"node": order, "name": name, "shape": [int(d) for d in s.shape],
                          "dtype": s.dtype.name, "bytes": s.nbytes})
            total += s.nbytes
        if total and not node.released:
            key = id(node)
            self._holding[key] = (weakref.ref(node, lambda _, key=key: self._let_go(key)), total)
            self.held_bytes += total

    def _let_go(self, key):
        entry = self._holding.pop(key, None)
        if entry is not None:
            self.held_bytes -= entry[1]

    def _release_freed(self):
        """Nodes a backward pass released (without ``retain_graph``) hold nothing any more."""
        for key, (ref, _) in list(self._holding.items()):
            node = ref()
            if node is not None and node.released:
                self._let_go(key)

    # -- results --------------------------------------------------------------------------------
    def graph(self, max_values=None) -> dict | None:
        """The graph of every recorded node still alive, from those nothing recorded consumes
        (latest first, so a loss is ``n0``), named by the last top-level step's variables;
        ``None`` when no node was recorded, or when it has more than ``MAX_GRAPH_NODES`` nodes.
        A recording a cap cut gives the graph as it stood then."""
        if self._snapshot is not None and max_values is None:
            return self._snapshot
        return self._graph(self.max_values if max_values is None else max_values)

    def _graph(self, max_values):
        from .walk import MAX_VALUES, build

        alive = sorted(self._nodes.items(), key=lambda item: -item[1]["order"])
        consumed = {ni.edge for node, _ in alive for ni in node.inputs if ni.edge is not None}
        roots = [node for node, _ in alive if node not in consumed]
        if not roots:
            return None
        of_node = {}
        for name, t in self._names:
            node = _node_of(t)
            if node is not None:
                of_node.setdefault(node, t)
        tensors = [of_node.get(node) for node in roots]
        self.graph_nodes = _size(roots, MAX_GRAPH_NODES + 1)
        if self.graph_nodes > MAX_GRAPH_NODES:
            return None
        limit = MAX_VALUES if max_values is None else max_values
        return build(tensors, roots, self._names, limit, recorded=self._nodes.get).data

    def to_dict(self, with_graph=True) -> dict:
        """The forward document (SCHEMA.md, ``kind: "forward"``); ``with_graph=False`` leaves
        out the graph (``null``) for a caller that has one already (a trace's)."""
        from .walk import SCHEMA_VERSION

        return {
            "version": SCHEMA_VERSION,
            "kind": "forward",
            "filename": self.filename,
            "steps": self.steps,
            "nodes": self._count,
            "truncated": self.truncated,
            "cut_by": self.cut_by,
            "stopped_at": self.stopped_at,
            "max_steps": self.max_steps,
            "max_nodes": self.max_nodes,
            "held_bytes": self.held_bytes,
            "graph": self.graph() if with_graph else None,
            "graph_nodes": self.graph_nodes if with_graph else 0,
            "max_graph_nodes": MAX_GRAPH_NODES,
        }

    def __repr__(self):
        cut = f", cut by its {self.cut_by} cap" if self.truncated else ""
        return f"<kael.viz.ForwardRecording {self.filename!r}: {len(self.steps)} steps, {self._count} nodes{cut}>"


def forward(filename, max_steps=MAX_STEPS, max_nodes=MAX_NODES, max_values=None) -> ForwardRecording:
    """``with kael.viz.forward("main.py") as rec: exec(compile(src, "main.py", "exec"), ns)``
    records, line by line, what that file's code does to the autograd graph: at most
    ``max_steps`` lines and ``max_nodes`` nodes; the graph keeps ``max_values`` values a tensor."""
    return ForwardRecording(filename, max_steps, max_nodes, max_values)
