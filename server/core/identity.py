"""Client identities that only this server can issue: ``k1.<id>.<mac>``, where ``id`` is 128
random bits and ``mac`` is HMAC-SHA256 of it under the server's secret. A client cannot choose
or forge one; it asks the server (``POST /api/clients``, limited per address) and sends it back
in ``X-Client-Token``. The database keeps only a hash of ``id``.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import logging
import os
import re
import secrets
from pathlib import Path

log = logging.getLogger("kael.server")

SECRET_FILE = "secret"


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


class Identities:
    """Mints and checks tokens ``<prefix>.<id>.<mac>`` under the server's secret. ``label``
    separates kinds of token signed with one secret: a client token (``k1``) is never a
    teacher credential (``t1``, server/classroom/tokens.py), nor the reverse."""

    def __init__(self, secret: bytes, *, label: str = "kael-client", prefix: str = "k1"):
        if len(secret) < 16:
            raise ValueError("the identity secret must be at least 16 bytes")
        self._secret = secret
        self._label = label.encode() + b":"
        self._prefix = prefix
        self._pattern = re.compile(re.escape(prefix) + r"\.([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{43})")

    def _mac(self, ident: str) -> str:
        return _b64(hmac.new(self._secret, self._label + ident.encode(), hashlib.sha256).digest())

    def mint(self) -> str:
        ident = _b64(secrets.token_bytes(16))
        return f"{self._prefix}.{ident}.{self._mac(ident)}"

    def verify(self, token: str) -> str | None:
        """The key (a hash of the token's id) of a token this server issued, else None."""
        match = self._pattern.fullmatch(token)
        if match is None or not hmac.compare_digest(match[2], self._mac(match[1])):
            return None
        return hashlib.sha256(self._label + match[1].encode()).hexdigest()


def load_secret(settings) -> bytes:
    """``KAEL_SECRET``, else the ``secret`` file of the data folder (made on first start, 0600).
    Several server processes that share one database must share the secret too."""
    if settings.secret:
        return settings.secret.encode()
    path = Path(settings.data_dir) / SECRET_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        secret = path.read_bytes().strip()
        if len(secret) < 16:
            raise ValueError(f"{path} holds fewer than 16 bytes: delete it to make a new secret "
                             "(every client token issued so far stops working)") from None
        return secret
    with os.fdopen(fd, "wb") as f:
        f.write(secrets.token_hex(32).encode())
    log.info("made a new identity secret in %s", path)
    return path.read_bytes().strip()
