"""Rate limits: how many events a key (a client, a network) may have in a sliding window.

Limits meant for one person are keyed on the network a person holds, not the exact address
(``network_key``): an IPv6 /64 is what one subscriber gets, and loopback is one machine.

``Limiter`` is the interface the routes use; ``MemoryLimiter`` keeps the events in this
process (the default, one server process). A deployment with several API processes plugs in an
implementation that keeps them in a shared store, through ``Limits``.
"""

from __future__ import annotations

import ipaddress
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
    """The server's limits: accepted submissions per client and per network, client tokens
    minted per network, client tokens minted on the whole server (``mint_all``, one key), and
    progress writes per client."""

    client: Limiter
    address: Limiter
    mint: Limiter
    mint_all: Limiter
    progress: Limiter


def memory_limits(settings) -> Limits:
    return Limits(client=MemoryLimiter(settings.rate_limit, settings.rate_window_s),
                  address=MemoryLimiter(settings.address_rate_limit, settings.address_rate_window_s),
                  mint=MemoryLimiter(settings.mint_limit, settings.mint_window_s),
                  mint_all=MemoryLimiter(settings.mint_global_limit, settings.mint_global_window_s),
                  progress=MemoryLimiter(settings.progress_rate_limit, settings.progress_rate_window_s))


def network_key(address: str, ipv4_prefix: int = 32, ipv6_prefix: int = 64) -> str:
    """The key of the network ``address`` belongs to: its IPv6 /``ipv6_prefix`` or IPv4
    /``ipv4_prefix``, ``"loopback"`` for every loopback address (127/8 and ::1: one machine;
    behind a trusted proxy the address is the one the proxy forwarded), the text itself if it
    is not an address."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if ip.version == 6 and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    if ip.is_loopback:
        return "loopback"
    prefix = ipv6_prefix if ip.version == 6 else ipv4_prefix
    return str(ipaddress.ip_network(f"{ip}/{prefix}", strict=False))


def retry_after(seconds: float) -> str:
    return str(max(1, math.ceil(seconds)))

