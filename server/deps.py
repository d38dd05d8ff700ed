"""Dependencies of the route handlers: settings, database session, grading, the client."""

import hashlib
import hmac
import re
import secrets
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Header, HTTPException, Request, Response
from sqlalchemy.orm import Session

from server.core.config import Settings
from server.core.ratelimit import RateLimiter
from server.grading.service import Grading

CLIENT_COOKIE = "kael_client"
CLIENT_HEADER = "X-Client-Token"
TOKEN_PATTERN = re.compile(r"[A-Za-z0-9_-]{16,128}")
COOKIE_MAX_AGE = 400 * 24 * 3600  # the most browsers keep


def get_settings(request: Request) -> Settings:
    return request.app.state.settings


def get_session(request: Request) -> Iterator[Session]:
    with request.app.state.sessions() as session:
        yield session


def get_grading(request: Request) -> Grading:
    return request.app.state.grading


def get_limiter(request: Request) -> RateLimiter:
    return request.app.state.limiter


SettingsDep = Annotated[Settings, Depends(get_settings)]
SessionDep = Annotated[Session, Depends(get_session)]
GradingDep = Annotated[Grading, Depends(get_grading)]
LimiterDep = Annotated[RateLimiter, Depends(get_limiter)]


@dataclass(frozen=True)
class Client:
    """Who is asking: ``key`` is a hash of the opaque client token (the token itself is never
    stored); ``admin`` when the request carried the admin token."""

    key: str
    admin: bool = False


def get_client(
    request: Request, response: Response, settings: SettingsDep,
    x_client_token: Annotated[str | None, Header(
        description="an API client's own opaque token (16-128 of A-Z a-z 0-9 _ -); browsers "
                    "get the kael_client cookie instead")] = None,
) -> Client:
    """The client token from the X-Client-Token header (API clients choose their own) or the
    cookie; a browser without one gets a new random token in an HttpOnly, SameSite cookie."""
    token = x_client_token
    if token is not None:
        if not TOKEN_PATTERN.fullmatch(token):
            raise HTTPException(422, detail=f"{CLIENT_HEADER} must be 16 to 128 characters "
                                            "of A-Z, a-z, 0-9, '_' and '-'")
    else:
        token = request.cookies.get(CLIENT_COOKIE)
        if token is None or not TOKEN_PATTERN.fullmatch(token):
            token = secrets.token_urlsafe(32)
            response.set_cookie(CLIENT_COOKIE, token, max_age=COOKIE_MAX_AGE, path="/api",
                                httponly=True, samesite="strict",
                                secure=request.url.scheme == "https")
    return Client(key=hashlib.sha256(token.encode()).hexdigest(), admin=_is_admin(request, settings))


def _is_admin(request: Request, settings: Settings) -> bool:
    header = request.headers.get("Authorization")
    if header is None:
        return False
    scheme, _, credential = header.partition(" ")
    if (scheme.lower() != "bearer" or not settings.admin_token
            or not hmac.compare_digest(credential.strip().encode(), settings.admin_token.encode())):
        raise HTTPException(401, detail="invalid admin token", headers={"WWW-Authenticate": "Bearer"})
    return True


ClientDep = Annotated[Client, Depends(get_client)]
