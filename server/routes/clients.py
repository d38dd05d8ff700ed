"""Client tokens: the server issues every identity; minting is limited per network (an IPv6
/64, an IPv4 address or the configured prefix, loopback as one) and on the whole server."""

from fastapi import APIRouter, HTTPException
from pydantic import BaseModel, Field

from server.core.ratelimit import retry_after
from server.deps import CLIENT_HEADER, IdentitiesDep, LimitsDep, NetworkDep

router = APIRouter(prefix="/clients", tags=["clients"])


class ClientToken(BaseModel):
    token: str = Field(description=f"send it back in {CLIENT_HEADER} with every request")
    header: str = CLIENT_HEADER


@router.post("", status_code=201, response_model=ClientToken, responses={
    429: {"description": "too many tokens issued to this network, or on the server this "
                         "minute; see Retry-After"}})
def create_client(identities: IdentitiesDep, limits: LimitsDep, network: NetworkDep):
    """A new client identity: an opaque token signed by this server. Keep it: your submissions
    are filed under it, and only it (or the admin token) reads them."""
    ok, wait = limits.mint.allow(network)
    if not ok:
        raise HTTPException(429, detail=f"too many new client tokens from this network: at most "
                                        f"{limits.mint.limit} every {limits.mint.window_s:g} s; "
                                        "keep using the one you have",
                            headers={"Retry-After": retry_after(wait)})
    ok, wait = limits.mint_all.allow("all")
    if not ok:
        limits.mint.undo(network)
        raise HTTPException(429, detail="too many new client tokens on this server right now; "
                                        "try again in a minute",
                            headers={"Retry-After": retry_after(wait)})
    return ClientToken(token=identities.mint())
