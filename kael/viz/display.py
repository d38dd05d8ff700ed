"""``show``: the call a playground user writes to see a graph or a trace.

In plain CPython ``show`` prints text. A front end replaces that with ``set_display(fn)``:
``fn`` then receives the JSON-able dict (``data["kind"]`` is ``"graph"`` or ``"trace"``) and
draws it; the browser's worker installs such a hook, so the same user code draws a picture there.
"""

from __future__ import annotations

import json

from .forward import ForwardRecording
from .names import caller_frame, caller_names, merge_names
from .memory import MemoryLog
from .recorder import Trace
from .text import to_text
from .walk import MAX_VALUES, graph

__all__ = ["show", "set_display", "get_display", "as_data", "to_json"]

_display = None


def set_display(fn):
    """Route ``show`` to ``fn(data)``; ``None`` restores printing. Returns the previous hook."""
    global _display
    if fn is not None and not callable(fn):
        raise TypeError(f"set_display expects a callable or None, got {type(fn).__name__}")
    previous, _display = _display, fn
    return previous


def get_display():
    """The installed display hook, or ``None`` when ``show`` prints."""
    return _display


def as_data(obj, params=None, max_values=MAX_VALUES) -> dict:
    """The dict ``show`` hands on: a trace's ``to_dict()``, a graph or trace dict unchanged, else
    ``graph(obj, params)`` for a tensor, a node or a list of them."""
    if isinstance(obj, (Trace, MemoryLog, ForwardRecording)):
        return obj.to_dict()
    if isinstance(obj, dict) and obj.get("kind") in ("graph", "trace", "memory", "forward"):
        return obj
    return graph(obj, params, max_values)


def to_json(obj, params=None, indent=None) -> str:
    """``as_data(obj, params)`` as strict JSON text (no NaN; non-finite values are strings)."""
    return json.dumps(as_data(obj, params), indent=indent, allow_nan=False)


def show(obj, params=None, *, caller=None):
    """Show the graph of ``obj`` (a tensor, node or list of them) or a trace.

    Tensors are named by ``params`` and, where unambiguous, by the caller's own variables
    (``caller``: the frame to read them from, by default the one that called ``show``).

    With a display hook installed, calls ``hook(data)`` and returns what it returns; otherwise
    prints the graph as an indented tree (a trace as ADR 0005's table) and returns ``None``.
    """
    if not isinstance(obj, (Trace, MemoryLog, ForwardRecording, dict)):
        params = merge_names(params, caller_names(caller if caller is not None else caller_frame()))
    data = as_data(obj, params)
    if _display is not None:
        return _display(data)
    print(to_text(data))
    return None
