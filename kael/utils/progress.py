"""How far kael's long operations are, for a host that shows it (the playground's progress bar).

A host registers one reporter, ``set_reporter(fn)``; a long operation then calls
``fn(done, total, what)`` as it goes (``what`` says what ``done`` and ``total`` count, e.g.
``"matmul [64, 256] @ [256, 1024]: rows"``), at least once with ``done == total`` when it ends.
The reporter decides how often to show it (the playground at most a few times a second).
With no reporter, ``reporter`` is None and an operation's whole cost is one check of it: kael
never imports its host.

Today's long operation is the large float matmul that Pyodide hands to JavaScript
(``kael/backend/pyarray/js_kernel.py``).
"""

from __future__ import annotations

__all__ = ["reporter", "set_reporter"]

reporter = None  # fn(done, total, what), or None


def set_reporter(fn):
    """Register ``fn`` (or None for none); returns the previous reporter."""
    global reporter
    if fn is not None and not callable(fn):
        raise TypeError(f"a progress reporter is a function fn(done, total, what), not {type(fn).__name__}")
    previous, reporter = reporter, fn
    return previous
