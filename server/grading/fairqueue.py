"""The grading queue: fair across clients, with a cap on each client's share.

First come, first served lets one client take the judge away from everyone: four submissions
that sleep for their whole time limit hold both slots of a 2-core judge while an honest
submission waits behind them. So:

* **round robin across clients**: a client's second submission waits behind every other
  client's first; within one client, submissions keep their order;
* **a cap on running slots per client** (``max_running``, default half the slots, at least
  one): whatever one client submits, the other slots stay free for everyone else;
* **a cap on wall time per client per minute** (``wall_seconds_per_minute``): a client whose
  runs used that much grading time in the last 60 s waits until its older runs age out.

The caps are not work-conserving on purpose: a slot left idle for a moment is the price of
an honest submission never waiting behind a flood. Submissions whose client is unknown (those
re-queued at start-up) share one key.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict, deque

WINDOW_S = 60.0


class FairQueue:
    def __init__(self, *, workers: int, max_running: int | None = None,
                 wall_seconds_per_minute: float | None = None, clock=time.monotonic):
        self.max_running = max_running or max(1, workers // 2)
        self.wall_budget = wall_seconds_per_minute if wall_seconds_per_minute is not None else 60.0
        self._clock = clock
        self._cond = threading.Condition()
        self._pending: OrderedDict[str, deque] = OrderedDict()  # client -> items, in turn order
        self._running: dict[str, int] = {}
        self._spent: dict[str, deque] = {}  # client -> (finished at, seconds) in the window
        self._stops = 0

    def put(self, item, client: str | None = None) -> None:
        with self._cond:
            self._pending.setdefault(client or "", deque()).append(item)
            self._cond.notify_all()

    def stop(self, count: int) -> None:
        """Make ``count`` waiting (or future) ``get`` calls return ``(None, None)``."""
        with self._cond:
            self._stops += count
            self._cond.notify_all()

    def get(self):
        """The next ``(item, client)`` by turn among the clients under their caps (blocks)."""
        with self._cond:
            while True:
                if self._stops:
                    self._stops -= 1
                    return None, None
                client, wait = self._eligible()
                if client is not None:
                    items = self._pending.pop(client)
                    item = items.popleft()
                    if items:
                        self._pending[client] = items  # back of the line
                    self._running[client] = self._running.get(client, 0) + 1
                    return item, client
                self._cond.wait(wait)

    def done(self, client: str, seconds: float) -> None:
        """A run of ``client``'s finished after ``seconds`` of wall time."""
        with self._cond:
            self._running[client] -= 1
            if not self._running[client]:
                del self._running[client]
            self._spent.setdefault(client, deque()).append((self._clock(), seconds))
            self._cond.notify_all()

    def __len__(self) -> int:
        with self._cond:
            return sum(len(items) for items in self._pending.values())

    def _eligible(self):
        """The first client in turn order under both caps, or ``(None, seconds to wait)``."""
        now = self._clock()
        wait = None
        for client in self._pending:
            if self._running.get(client, 0) >= self.max_running:
                continue  # woken by done()
            spent = self._spent.get(client)
            used = 0.0
            if spent:
                while spent and now - spent[0][0] > WINDOW_S:
                    spent.popleft()
                used = sum(seconds for _, seconds in spent)
                if not spent:
                    del self._spent[client]
            if used < self.wall_budget:
                return client, None
            oldest = spent[0][0] + WINDOW_S - now
            wait = oldest if wait is None else min(wait, oldest)
        return None, (max(wait, 0.01) if wait is not None else None)
