"""Keep the log readable under attack: at most a few warnings or errors of one kind per minute.

Thousands of hostile connections can each make the server log the same warning (an invalid
request, a refused connection) or traceback; the log then floods and what matters drowns. The
``FloodGuard`` filter lets through the first ``burst`` records of one kind (logger, level,
message template, exception type) per window and counts the rest; the first record of the kind
in a later window says how many were left out. Records below WARNING (the access log) pass.
"""

from __future__ import annotations

import logging
import threading
import time


class FloodGuard(logging.Filter):
    def __init__(self, burst: int = 5, window_s: float = 60.0, clock=time.monotonic,
                 max_kinds: int = 1000):
        super().__init__()
        self.burst = burst
        self.window_s = window_s
        self.clock = clock
        self.max_kinds = max_kinds
        self._kinds: dict[tuple, list] = {}  # kind -> [window start, passed, suppressed]
        self._lock = threading.Lock()

    @staticmethod
    def kind(record: logging.LogRecord) -> tuple:
        exc = record.exc_info[0].__name__ if record.exc_info and record.exc_info[0] else None
        return record.name, record.levelno, str(record.msg)[:200], exc

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno < logging.WARNING:
            return True
        now = self.clock()
        key = self.kind(record)
        with self._lock:
            state = self._kinds.get(key)
            if state is None or now - state[0] >= self.window_s:
                left_out = state[2] if state else 0
                if len(self._kinds) >= self.max_kinds:
                    self._kinds = {k: v for k, v in self._kinds.items() if now - v[0] < self.window_s}
                self._kinds[key] = [now, 1, 0]
                if left_out:
                    record.msg = (f"{record.msg} [and {left_out} more like this in "
                                  f"{self.window_s:g} s, left out of the log]")
                return True
            if state[1] < self.burst:
                state[1] += 1
                return True
            state[2] += 1
            return False


def install_flood_guard(logger: logging.Logger, guard: FloodGuard | None = None) -> FloodGuard:
    """Put one guard on every handler of ``logger`` (once per handler)."""
    guard = guard or FloodGuard()
    for handler in logger.handlers:
        if not any(isinstance(f, FloodGuard) for f in handler.filters):
            handler.addFilter(guard)
    return guard
