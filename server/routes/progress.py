"""A learner's progress (server/progress.py): read it, or merge a copy into it. Only the
identity's own: the row is the one of the key the client token names, never chosen by the body."""

from fastapi import APIRouter

from server import progress as store
from server.deps import ClientDep, SessionDep, SettingsDep
from server.progress import Progress, ProgressPublic

router = APIRouter(prefix="/progress", tags=["progress"])

ERRORS = {
    401: {"description": "no client token, or one this server did not issue"},
    413: {"description": "body larger than the server's limit"},
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
def merge_progress(body: Progress, client: ClientDep, session: SessionDep, settings: SettingsDep):
    """Merge a copy of the progress (the page's) into this identity's: nothing either holds is
    lost (README, "Progress"); ``accepted`` in the body is ignored. Answers the merged copy."""
    key = client.require_key()
    store.check_known(body, settings)
    store.save(session, key, store.stored_form(body, store.now_ms()))
    return store.public(session, key)
