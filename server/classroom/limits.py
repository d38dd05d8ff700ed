"""The join limit: wrong codes cost the same as right ones, counted per network (the key of
``server.core.ratelimit.network_key``: an IPv6 /64, an IPv4 prefix, loopback as one), so a join
code (60 bits) cannot be found by trying. In memory by default, in the database in scaled
mode (several API servers share it)."""

from __future__ import annotations

from server.core.ratelimit import MemoryLimiter
from server.scaled.ratelimit import DbRateLimiter

JOIN_LIMIT, JOIN_WINDOW_S = 30, 600.0


def join_limiter(settings, sessions=None):
    if settings.scaled:
        return DbRateLimiter(sessions, JOIN_LIMIT, JOIN_WINDOW_S, namespace="join")
    return MemoryLimiter(JOIN_LIMIT, JOIN_WINDOW_S)

