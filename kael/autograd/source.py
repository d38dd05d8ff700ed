"""Where in the learner's program a tensor was saved for backward and modified in place.

Off by default. ``set_detect_source(True)`` (the playground turns it on) makes every save for
backward, every in-place write and every backward pass record one frame: the first frame
outside kael, as (file, line). The version error and the second-backward error then name the
lines: ``saved by MulBackward at line 3: a = x * w; modified at line 5: w.add_(1)``. A
record is a frame walk of a few steps and no source text: the text is read from ``linecache``
only when an error message is made. With the flag off, the cost is one attribute test per save.
"""

from __future__ import annotations

import linecache
import sys
import weakref

__all__ = ["set_detect_source", "is_detect_source_enabled", "detect_source", "here", "describe",
           "record_modification", "modification_of"]


class _State:
    __slots__ = ("enabled",)

    def __init__(self):
        self.enabled = False


state = _State()
_modified = weakref.WeakKeyDictionary()  # Storage -> where its last in-place write happened
_KAEL = __name__.rsplit(".", 2)[0] + "."  # "kael."


def set_detect_source(enabled: bool) -> bool:
    """Record source lines for autograd's errors (``True``) or not; returns the previous value."""
    previous, state.enabled = state.enabled, bool(enabled)
    return previous


def is_detect_source_enabled() -> bool:
    return state.enabled


class detect_source:
    """``with kael.autograd.detect_source():`` records source lines inside the block."""

    def __init__(self, enabled=True):
        self.enabled = enabled
        self.previous = None

    def __enter__(self):
        self.previous = set_detect_source(self.enabled)
        return self

    def __exit__(self, *exc):
        set_detect_source(self.previous)
        return False


def here():
    """``(filename, lineno)`` of the innermost frame outside kael, or None."""
    frame = sys._getframe(1)
    while frame is not None:
        name = frame.f_globals.get("__name__", "")
        if not (name.startswith(_KAEL) or name == "kael"):
            return frame.f_code.co_filename, frame.f_lineno
        frame = frame.f_back
    return None


def describe(where) -> str:
    """``line 3: a = x * w`` (or ``line 3`` when the source text is unknown)."""
    filename, lineno = where
    text = linecache.getline(filename, lineno).strip()
    return f"line {lineno}: {text}" if text else f"line {lineno} of {filename}"


def record_modification(storage) -> None:
    where = here()
    if where is not None:
        _modified[storage] = where


def modification_of(storage):
    return _modified.get(storage)
