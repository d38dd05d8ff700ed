"""Dependencies of the route handlers: settings, database session, grading, limits, the client."""

import hmac
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Header, HTTPException, Request
from sqlalchemy.orm import Session

from server.core.config import Settings
from server.core.identity import Identities
from server.core.ratelimit import Limits, network_key
from server.grading.service import Grading

CLIENT_HEADER = "X-Client-Token"
NO_TOKEN = (f"this needs a client token in {CLIENT_HEADER}; POST /api/clients issues one "
            "(the playground's page does that by itself)")


def get_settings(request: Request) -> Settings:
    return request.app.state.settings


def get_session(request: Request) -> Iterator[Session]:
    with request.app.state.sessions() as session:
        yield session


def get_grading(request: Request) -> Grading:
    return request.app.state.grading


def get_limits(request: Request) -> Limits:
    return request.app.state.limits


def get_identities(request: Request) -> Identities:
    return request.app.state.identities


def client_address(request: Request) -> str:
    """The peer's address (a trusted proxy's X-Forwarded-For already applied by the server)."""
    return request.client.host if request.client else "unknown"


def client_network(request: Request) -> str:
    """The key of the peer's network, for limits meant per person (``ratelimit.network_key``)."""
    settings = request.app.state.settings
    return network_key(client_address(request), settings.ipv4_prefix, settings.ipv6_prefix)


SettingsDep = Annotated[Settings, Depends(get_settings)]
SessionDep = Annotated[Session, Depends(get_session)]
GradingDep = Annotated[Grading, Depends(get_grading)]
LimitsDep = Annotated[Limits, Depends(get_limits)]
IdentitiesDep = Annotated[Identities, Depends(get_identities)]
AddressDep = Annotated[str, Depends(client_address)]
NetworkDep = Annotated[str, Depends(client_network)]


@dataclass(frozen=True)
class Client:
    """Who is asking: ``key`` identifies a server-issued token (None: the request carried
    none); ``admin`` when the request carried the admin token."""

    key: str | None
    admin: bool = False

    def require_key(self) -> str:
        if self.key is None:
            raise HTTPException(401, detail=NO_TOKEN)
        return self.key


def get_client(
    request: Request, settings: SettingsDep, identities: IdentitiesDep,
    x_client_token: Annotated[str | None, Header(
        description="a client token this server issued (POST /api/clients)")] = None,
) -> Client:
    """The client named by ``X-Client-Token``, which must be a token this server issued (a
    client-chosen or altered one is 401). Cookies are never read: see README, "Identity"."""
    admin = _is_admin(request, settings)
    if x_client_token is None:
        if admin:
            return Client(key=None, admin=True)
        raise HTTPException(401, detail=NO_TOKEN)
    key = identities.verify(x_client_token.strip())
    if key is None:
        raise HTTPException(401, detail=f"{CLIENT_HEADER} is not a token this server issued; "
                                        "POST /api/clients issues one")
    return Client(key=key, admin=admin)


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
