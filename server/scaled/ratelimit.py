"""The ``Limiter`` of ``server.core.ratelimit`` with its events in the database, so that every
API server of a cluster counts the same events: ``allow(key)`` and ``undo(key)`` as there.

On Postgres one key's check runs under a transaction-scoped advisory lock on that key, so two
API servers cannot both admit the last allowed request. (On SQLite a single server uses the
in-memory limiter; this class works there too, for tests.)
"""

from __future__ import annotations

import time

from sqlalchemy import delete, func, select, text
from sqlalchemy.orm import Session, sessionmaker

from server.core.ratelimit import Limits
from server.models import RateEvent

# Events are pruned per key on each check; keys nobody uses any more every this many checks.
PRUNE_EVERY = 1000


class DbRateLimiter:
    def __init__(self, sessions: sessionmaker[Session], limit: int, window_s: float, *,
                 namespace: str = "client", clock=time.time):
        """``namespace``: one per limiter sharing the table (a client limit, an address
        limit...), so that each prunes only its own events."""
        self.sessions = sessions
        self.namespace = namespace
        self.limit = limit
        self.window_s = window_s
        self.clock = clock
        self._checks = 0

    def allow(self, key: str) -> tuple[bool, float]:
        """``(True, 0)`` and count one event for ``key``, or ``(False, seconds to wait)``."""
        if self.limit <= 0 or self.window_s <= 0:
            return True, 0.0
        key = f"{self.namespace}:{key}"
        now = self.clock()
        horizon = now - self.window_s
        with self.sessions() as s, s.begin():
            if s.get_bind().dialect.name == "postgresql":
                s.execute(text("SELECT pg_advisory_xact_lock(hashtextextended(:key, 0))"), {"key": key})
            s.execute(delete(RateEvent).where(RateEvent.key == key, RateEvent.at <= horizon))
            count, oldest = s.execute(select(func.count(), func.min(RateEvent.at))
                                      .where(RateEvent.key == key)).one()
            if count >= self.limit:
                return False, max(oldest + self.window_s - now, 0.001)
            s.add(RateEvent(key=key, at=now))
        self._checks += 1
        if self._checks % PRUNE_EVERY == 0:
            self._prune(horizon)
        return True, 0.0

    def undo(self, key: str) -> None:
        """Take back the last event counted for ``key`` (its request failed later on)."""
        key = f"{self.namespace}:{key}"
        with self.sessions() as s, s.begin():
            newest = s.scalar(select(RateEvent.id).where(RateEvent.key == key)
                              .order_by(RateEvent.at.desc(), RateEvent.id.desc()).limit(1))
            if newest is not None:
                s.execute(delete(RateEvent).where(RateEvent.id == newest))

    def _prune(self, horizon: float) -> None:
        with self.sessions() as s, s.begin():
            s.execute(delete(RateEvent).where(RateEvent.key.startswith(f"{self.namespace}:", autoescape=True),
                                              RateEvent.at <= horizon))


def db_limits(settings, sessions: sessionmaker[Session]) -> Limits:
    """The server's limits (as ``server.core.ratelimit.memory_limits``), kept in the database."""
    return Limits(
        client=DbRateLimiter(sessions, settings.rate_limit, settings.rate_window_s, namespace="client"),
        address=DbRateLimiter(sessions, settings.address_rate_limit, settings.address_rate_window_s,
                              namespace="address"),
        mint=DbRateLimiter(sessions, settings.mint_limit, settings.mint_window_s, namespace="mint"),
        mint_all=DbRateLimiter(sessions, settings.mint_global_limit, settings.mint_global_window_s,
                               namespace="mint_all"),
        progress=DbRateLimiter(sessions, settings.progress_rate_limit, settings.progress_rate_window_s,
                               namespace="progress"))
