"""A learner's progress (server/progress.py): read it, or merge a copy into it. Only the
identity's own: the row is the one of the key the client token names, never chosen by the body."""

from fastapi import APIRouter, HTTPException

from server import progress as store
from server.core.ratelimit import retry_after
from server.deps import ClientDep, LimitsDep, SessionDep, SettingsDep
from server.progress import Progress, ProgressPublic

router = APIRouter(prefix="/progress", tags=["progress"])

ERRORS = {
    401: {"description": "no client token, or one this server did not issue"},
    413: {"description": "body larger than the server's limit"},
    429: {"description": "too many writes from this identity (KAEL_PROGRESS_RATE_LIMIT); see Retry-After"},
    422: {"description": "invalid body: not the shape below, too many entries, or a lesson, cell "
                         "or exercise this server does not have"},
    503: {"description": "the database is unavailable, or too many writes at once; see Retry-After"},
}


@router.get("", response_model=ProgressPublic, responses=ERRORS)
def read_progress(client: ClientDep, session: SessionDep):
    """This identity's progress: lessons read and cells run, hints revealed, public tests
    passed, and Accepted as this server's verdicts of its submissions say."""
    return store.public(session, client.require_key())


@router.post("", response_model=ProgressPublic, responses=ERRORS)
def merge_progress(body: Progress, client: ClientDep, session: SessionDep, settings: SettingsDep,
                   limits: LimitsDep):
    """Merge a copy of the progress (the page's) into this identity's: nothing either holds is
    lost (README, "Progress"); ``accepted`` in the body is ignored. Answers the merged copy.
    Writes are limited per identity (429 with Retry-After, nothing kept)."""
    key = client.require_key()
    store.check_known(body, settings)
    ok, wait = limits.progress.allow(key)
    if not ok:
        raise HTTPException(429, detail=f"too many progress writes from this identity: at most "
                                        f"{limits.progress.limit} every {limits.progress.window_s:g} s",
                            headers={"Retry-After": retry_after(wait)})
    store.save(session, key, store.stored_form(body, store.now_ms()))
    return store.public(session, key)
