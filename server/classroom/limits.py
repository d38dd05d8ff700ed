"""The join limit: wrong codes cost the same as right ones, counted per address prefix, so a
join code (60 bits) cannot be found by trying. In memory by default, in the database in scaled
mode (several API servers share it)."""

from __future__ import annotations

import ipaddress

from server.core.ratelimit import MemoryLimiter

JOIN_LIMIT, JOIN_WINDOW_S = 30, 600.0


def join_limiter(settings, sessions=None):
    if settings.scaled:
        from server.scaled.ratelimit import DbRateLimiter

        return DbRateLimiter(sessions, JOIN_LIMIT, JOIN_WINDOW_S, namespace="join")
    return MemoryLimiter(JOIN_LIMIT, JOIN_WINDOW_S)


def address_key(address: str) -> str:
    """One key per person's network: an IPv6 /64 (what one subscriber gets), an IPv4 address,
    and loopback as one key."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if ip.is_loopback:
        return "loopback"
    if ip.version == 6:
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)
