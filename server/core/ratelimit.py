"""A sliding-window limit on accepted submissions per client, in memory."""

import math
import threading
import time
from collections import deque


class RateLimiter:
    def __init__(self, limit: int, window_s: float, clock=time.monotonic):
        self.limit = limit
        self.window_s = window_s
        self.clock = clock
        self._events: dict[str, deque] = {}
        self._lock = threading.Lock()

    def check(self, key: str) -> float:
        """0 when ``key`` may go ahead now (and counts it), else the seconds to wait."""
        if self.limit <= 0 or self.window_s <= 0:
            return 0.0
        now = self.clock()
        with self._lock:
            events = self._events.setdefault(key, deque())
            while events and events[0] <= now - self.window_s:
                events.popleft()
            if len(events) >= self.limit:
                return max(events[0] + self.window_s - now, 0.001)
            events.append(now)
            if len(self._events) > 10_000:
                self._forget(now)
            return 0.0

    def undo(self, key: str) -> None:
        """Take back the last event counted for ``key`` (its request failed later on)."""
        with self._lock:
            events = self._events.get(key)
            if events:
                events.pop()

    def _forget(self, now: float) -> None:
        stale = [k for k, ev in self._events.items() if not ev or ev[-1] <= now - self.window_s]
        for k in stale:
            del self._events[k]


def retry_after(seconds: float) -> str:
    return str(max(1, math.ceil(seconds)))
