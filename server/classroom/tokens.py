"""Teacher credentials and join codes.

A teacher credential is ``t1.<id>.<mac>``: ``id`` is 128 random bits, ``mac`` HMAC-SHA256 of it
under the server's secret with its own label, so a client token (``k1.``) is never a teacher
credential and the reverse. The database keeps a hash of ``id`` and a revocation time, so a
revoked credential is refused on its next request. A join code is 60 random bits in Crockford's
base32 (no I, L, O, U), shown as ``XXXX-XXXX-XXXX``: read aloud in class, typed on a phone, and
unguessable behind the join rate limit.
"""

from __future__ import annotations

import re
import secrets

from server.core.identity import Identities

CODE_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
CODE_GROUPS, CODE_GROUP_LEN = 3, 4
_CODE_CHARS = re.compile(r"[^0-9A-Z]")
_CONFUSABLE = str.maketrans({"I": "1", "L": "1", "O": "0", "U": "V"})


class TeacherTokens:
    """Mints and checks teacher credentials: the server's signed tokens with their own label."""

    def __init__(self, secret: bytes):
        self._tokens = Identities(secret, label="kael-teacher", prefix="t1")

    def mint(self) -> tuple[str, str]:
        """A new credential and the hash the database keeps of it."""
        token = self._tokens.mint()
        return token, self._tokens.verify(token)

    def verify(self, token: str) -> str | None:
        """The stored hash of a credential this server minted, else None (whether it is still
        valid is the database's to say)."""
        return self._tokens.verify(token.strip())


def new_join_code() -> str:
    chars = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_GROUPS * CODE_GROUP_LEN))
    return "-".join(chars[i:i + CODE_GROUP_LEN] for i in range(0, len(chars), CODE_GROUP_LEN))


def normal_code(typed: str) -> str | None:
    """What a learner typed, as the stored code: case, spaces and dashes do not matter, and the
    letters Crockford's alphabet leaves out read as the digits they look like. None when it
    cannot be a code at all."""
    chars = _CODE_CHARS.sub("", typed.upper().translate(_CONFUSABLE))
    if len(chars) != CODE_GROUPS * CODE_GROUP_LEN:
        return None
    return "-".join(chars[i:i + CODE_GROUP_LEN] for i in range(0, len(chars), CODE_GROUP_LEN))


def new_id() -> str:
    return secrets.token_hex(16)
