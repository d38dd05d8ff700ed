"""The join limits: only wrong codes are counted (a right code costs nothing), per client and
per network (``server.core.ratelimit.network_key``: an IPv6 /64, an IPv4 prefix, loopback one
key). A learner who mistypes is held up alone; a classroom behind one address keeps joining; a
60-bit code stays out of reach: 200 guesses per 10 minutes per network. In memory by default,
in the database in scaled mode (several API servers share them)."""

from __future__ import annotations

from dataclasses import dataclass

from server.core.ratelimit import Limiter, MemoryLimiter
from server.scaled.ratelimit import DbRateLimiter

PER_CLIENT, PER_NETWORK, WINDOW_S = 10, 200, 600.0


@dataclass
class JoinLimits:
    client: Limiter
    network: Limiter

    def allow(self, client_key: str, network: str) -> tuple[bool, float]:
        """Count one attempt for both keys, or refuse with the wait; ``undo`` when it was right."""
        ok, wait = self.client.allow(client_key)
        if not ok:
            return False, wait
        ok, wait = self.network.allow(network)
        if not ok:
            self.client.undo(client_key)
        return ok, wait

    def undo(self, client_key: str, network: str) -> None:
        self.client.undo(client_key)
        self.network.undo(network)


def join_limits(settings, sessions=None) -> JoinLimits:
    if settings.scaled:
        return JoinLimits(DbRateLimiter(sessions, PER_CLIENT, WINDOW_S, namespace="join-client"),
                          DbRateLimiter(sessions, PER_NETWORK, WINDOW_S, namespace="join-network"))
    return JoinLimits(MemoryLimiter(PER_CLIENT, WINDOW_S), MemoryLimiter(PER_NETWORK, WINDOW_S))
