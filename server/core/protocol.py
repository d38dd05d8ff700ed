"""uvicorn's HTTP/1.1 protocol (h11) with the bounds a server facing slow or many clients needs.

uvicorn times out idle keep-alive connections but not a client that is slow to send a request:
a connection that never finishes its headers (or its body) stays open for ever, and enough of
them exhaust the process's file descriptors. ``GuardedH11Protocol`` adds

* a read deadline: from the moment the server waits for a request (the connection opened, or
  the previous response went out) the whole request must arrive within ``read_timeout_s``, or
  the connection is closed; trickling bytes does not extend it;
* a cap on open connections per client address and in all: the connection over a cap gets a
  429/503 and is closed at once, before anything is read.

Addresses of trusted reverse proxies are not capped per address (the proxy caps its clients).
"""

from __future__ import annotations

import json
import logging

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

log = logging.getLogger("kael.server")


class ConnectionGuard:
    """Open connections per address and in all, for one server (one event loop: no lock)."""

    def __init__(self, *, per_address: int, total: int, read_timeout_s: float, exempt=()):
        self.per_address = per_address
        self.total = total
        self.read_timeout_s = read_timeout_s
        self.exempt = frozenset(exempt)
        self.open: dict[str, int] = {}
        self.count = 0

    def admit(self, address: str) -> tuple[int, str] | None:
        """None when a new connection from ``address`` may stay (and counts it), else the
        status and reason to refuse it with."""
        if self.count >= self.total:
            return 503, f"the server has {self.count} connections open, its limit"
        if address not in self.exempt and self.open.get(address, 0) >= self.per_address:
            return 429, f"too many open connections from this address (at most {self.per_address})"
        self.count += 1
        self.open[address] = self.open.get(address, 0) + 1
        return None

    def release(self, address: str) -> None:
        self.count -= 1
        left = self.open.get(address, 0) - 1
        if left > 0:
            self.open[address] = left
        else:
            self.open.pop(address, None)


PHRASES = {400: "Bad Request", 408: "Request Timeout", 429: "Too Many Requests",
           503: "Service Unavailable"}


def refusal(status: int, reason: str) -> bytes:
    """A whole JSON error response that announces the close, written straight to the socket
    (outside h11's state machine: the connection is closed right after it)."""
    body = json.dumps({"detail": reason}).encode()
    phrase = PHRASES[status]
    return (f"HTTP/1.1 {status} {phrase}\r\ncontent-type: application/json\r\n"
            f"content-length: {len(body)}\r\nretry-after: 5\r\nconnection: close\r\n\r\n").encode() + body


class GuardedH11Protocol(H11Protocol):
    guard: ConnectionGuard  # set on the subclass that ``protocol_class`` makes

    def connection_made(self, transport) -> None:
        super().connection_made(transport)
        self._address = self.client[0] if self.client else "unknown"
        self._counted = False
        self._read_timer = None
        refused = self.guard.admit(self._address)
        if refused is not None:
            log.warning("refused a connection from %s: %s", self._address, refused[1])
            transport.write(refusal(*refused))
            transport.close()
            return
        self._counted = True
        self._watch_reading()

    def connection_lost(self, exc) -> None:
        if self._counted:
            self._counted = False
            self.guard.release(self._address)
        self._stop_read_timer()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if not self._counted:
            return  # refused: nothing it sends is read
        super().data_received(data)
        self._watch_reading()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._watch_reading()

    # -- the read deadline ---------------------------------------------------------------------

    def _watch_reading(self) -> None:
        """Arm the deadline while a request is awaited or half received; disarm once it is in."""
        waiting = (not self.transport.is_closing()
                   and self.conn.their_state in (h11.IDLE, h11.SEND_BODY))
        if waiting and self._read_timer is None:
            self._read_timer = self.loop.call_later(self.guard.read_timeout_s, self._read_timed_out)
        elif not waiting:
            self._stop_read_timer()

    def _stop_read_timer(self) -> None:
        if self._read_timer is not None:
            self._read_timer.cancel()
            self._read_timer = None

    def _read_timed_out(self) -> None:
        self._read_timer = None
        if self.transport.is_closing():
            return
        log.warning("closed a connection from %s that sent no whole request within %g s",
                    self._address, self.guard.read_timeout_s)
        self.transport.write(refusal(408, f"no whole request within {self.guard.read_timeout_s:g} s"))
        self.transport.close()

    def send_400_response(self, msg: str) -> None:
        """What h11 cannot parse gets a JSON error too, like every other refusal."""
        self.transport.write(refusal(400, f"invalid HTTP request ({msg.rstrip('.').lower()})"))
        self.transport.close()


def protocol_class(guard: ConnectionGuard) -> type[GuardedH11Protocol]:
    """A protocol class bound to ``guard`` (uvicorn instantiates it per connection)."""
    return type("KaelH11Protocol", (GuardedH11Protocol,), {"guard": guard})
