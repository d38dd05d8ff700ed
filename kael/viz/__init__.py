"""kael.viz: the autograd graph and the backward trace as data, text and DOT.

* ``graph(root, params=None)``: the backward graph reachable from ``root`` as JSON-able data.
* ``to_dot(root, params=None)``: the same graph as Graphviz DOT text.
* ``trace()``: ``with kael.viz.trace() as tr: loss.backward()`` records the engine's steps;
  ``tr.steps``, ``tr.to_dict()``, ``tr.table()``.
* ``record_modules()``: note which ``nn.Module`` call produced each node (``node["module"]``).
* ``forward(filename)``: ``with kael.viz.forward("main.py") as rec: exec(...)`` records that
  file's forward pass line by line: tensor locals, the nodes each line recorded, saved bytes.
* ``memory()``: ``with kael.viz.memory() as mem:`` records the bytes saved for backward as the
  forward saves them and the backward frees them (the activation-memory view).
* ``show(obj, params=None)``: prints a graph tree or a trace table, or hands the data to the
  display hook installed with ``set_display(fn)`` (the browser playground draws it).

The web UI draws only from this data; ``SCHEMA.md`` beside this file is the contract.
"""

from __future__ import annotations

from .display import as_data, get_display, set_display, show, to_json
from .dot import dot_text
from .forward import ForwardRecording, forward
from .memory import MemoryLog, memory
from .modules import record_modules
from .recorder import Trace, trace
from .text import format_values, to_text
from .walk import MAX_VALUES, SCHEMA_VERSION, graph, tensor_data

__all__ = [
    "graph", "to_dot", "trace", "Trace", "show", "set_display", "get_display", "as_data", "to_json",
    "to_text", "format_values", "tensor_data", "SCHEMA_VERSION", "MAX_VALUES", "record_modules",
    "memory", "MemoryLog", "forward", "ForwardRecording",
]


def to_dot(root, params=None) -> str:
    """Graphviz DOT text for the graph of ``root`` (or for a graph dict)."""
    data = as_data(root, params)
    if data["kind"] == "trace":
        if not data["passes"]:
            raise ValueError("this trace recorded no backward pass, so it has no graph to draw")
        data = data["passes"][-1]["graph"]
    return dot_text(data)
