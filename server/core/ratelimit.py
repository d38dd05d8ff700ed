"""Rate limits: how many events a key (a client, an address) may have in a sliding window.

``Limiter`` is the interface the routes use; ``MemoryLimiter`` keeps the events in this
process (the default, one server process). A deployment with several API processes plugs in an
implementation that keeps them in a shared store, through ``Limits``.
"""

from __future__ import annotations

import math
import threading
import time
from collections import deque
from dataclasses import dataclass
from typing import Protocol


class Limiter(Protocol):
    limit: int  # events per window; 0 = no limit
    window_s: float

    def allow(self, key: str) -> tuple[bool, float]:
        """``(True, 0)`` and count one event for ``key``, or ``(False, seconds to wait)``."""

    def undo(self, key: str) -> None:
        """Take back the last event counted for ``key`` (its request failed later on)."""


class MemoryLimiter:
    """A sliding window of event times per key, in memory, thread-safe."""

    def __init__(self, limit: int, window_s: float, clock=time.monotonic, max_keys: int = 10_000):
        self.limit = limit
        self.window_s = window_s
        self.clock = clock
        self.max_keys = max_keys
        self._events: dict[str, deque] = {}
        self._lock = threading.Lock()

    def allow(self, key: str) -> tuple[bool, float]:
        if self.limit <= 0 or self.window_s <= 0:
            return True, 0.0
        now = self.clock()
        with self._lock:
            events = self._events.setdefault(key, deque())
            while events and events[0] <= now - self.window_s:
                events.popleft()
            if len(events) >= self.limit:
                return False, max(events[0] + self.window_s - now, 0.001)
            events.append(now)
            if len(self._events) > self.max_keys:
                self._forget(now)
            return True, 0.0

    def undo(self, key: str) -> None:
        with self._lock:
            events = self._events.get(key)
            if events:
                events.pop()

    def count(self, key: str) -> int:
        """Events of ``key`` in the current window (for tests and diagnostics)."""
        now = self.clock()
        with self._lock:
            return sum(1 for t in self._events.get(key, ()) if t > now - self.window_s)

    def _forget(self, now: float) -> None:
        stale = [k for k, ev in self._events.items() if not ev or ev[-1] <= now - self.window_s]
        for k in stale:
            del self._events[k]


@dataclass
class Limits:
    """The server's limits: accepted submissions per client and per address, and client
    tokens minted per address."""

    client: Limiter
    address: Limiter
    mint: Limiter


def memory_limits(settings) -> Limits:
    return Limits(client=MemoryLimiter(settings.rate_limit, settings.rate_window_s),
                  address=MemoryLimiter(settings.address_rate_limit, settings.address_rate_window_s),
                  mint=MemoryLimiter(settings.mint_limit, settings.mint_window_s))


def retry_after(seconds: float) -> str:
    return str(max(1, math.ceil(seconds)))

