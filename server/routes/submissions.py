import datetime as dt
import uuid
from collections.abc import Callable

from fastapi import APIRouter, HTTPException, Query, Response
from sqlalchemy import func, select

from server.core.ratelimit import retry_after
from server.deps import ClientDep, GradingDep, LimitsDep, NetworkDep, SessionDep, SettingsDep
from server.grading.backend import QueueFull
from server.grading.report import bounded
from server.models import (
    Submission,
    SubmissionCreate,
    SubmissionCreated,
    SubmissionPublic,
    SubmissionsPublic,
)
from server.routes.exercises import find_exercise

router = APIRouter(prefix="/submissions", tags=["submissions"])

ERRORS = {
    404: {"description": "unknown exercise"},
    401: {"description": "no client token, or one this server did not issue"},
    413: {"description": "code larger than the server's limit (KAEL_MAX_CODE_BYTES)"},
    422: {"description": "invalid body"},
    429: {"description": "too many submissions from this client or address, or too many of "
                         "this client's still waiting; see Retry-After"},
    503: {"description": "grading queue full or grading unavailable; see Retry-After"},
}


def _utc(moment: dt.datetime | None) -> dt.datetime | None:
    if moment is not None and moment.tzinfo is None:
        return moment.replace(tzinfo=dt.timezone.utc)  # SQLite keeps no time zone
    return moment


def to_public(sub: Submission, *, full: bool) -> SubmissionPublic:
    """``full``: with the code and the per-test report (one submission); else the history line."""
    return SubmissionPublic(
        id=sub.id, exercise_id=sub.exercise_id, status=sub.status, verdict=sub.verdict,
        # bounded: a report stored before the frame schema may hold what the API cannot answer
        report=bounded(sub.report) if full and type(sub.report) is dict else None, error=sub.error,
        created_at=_utc(sub.created_at),
        started_at=_utc(sub.started_at), finished_at=_utc(sub.finished_at),
        code=sub.code if full else None,
    )


def _admit(client_key: str, address: str, session, settings, limits) -> Callable[[], None]:
    """Apply the per-client cap on waiting submissions and the per-client and per-address rate
    limits (429 with Retry-After); returns what takes the counted events back."""
    if settings.client_pending:
        pending = session.scalar(select(func.count()).select_from(Submission).where(
            Submission.client_hash == client_key, Submission.status.in_(("queued", "running"))))
        if pending >= settings.client_pending:
            raise HTTPException(429, detail=f"you have {pending} submissions waiting to be graded "
                                            f"(at most {settings.client_pending}); submit again "
                                            "when one is done", headers={"Retry-After": "2"})
    for limiter, key, who in ((limits.client, client_key, "client"), (limits.address, address, "network")):
        ok, wait = limiter.allow(key)
        if not ok:
            if who == "network":
                limits.client.undo(client_key)
            raise HTTPException(429, detail=f"too many submissions from this {who}: at most "
                                            f"{limiter.limit} every {limiter.window_s:g} s",
                                headers={"Retry-After": retry_after(wait)})

    def undo() -> None:
        limits.client.undo(client_key)
        limits.address.undo(address)

    return undo


def _check_text(name: str, value: str) -> None:
    """JSON may carry lone surrogates (\\ud800) that are no text: 422, not a failed insert."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise HTTPException(422, detail=f"{name} is not valid Unicode text: a lone surrogate "
                                        f"at character {exc.start}") from None


@router.post("", status_code=202, response_model=SubmissionCreated, responses=ERRORS)
def create_submission(body: SubmissionCreate, response: Response, client: ClientDep,
                      session: SessionDep, settings: SettingsDep, grading: GradingDep,
                      limits: LimitsDep, address: NetworkDep):
    """Store a submission and queue it for grading on the public and hidden tests."""
    client_key = client.require_key()
    _check_text("exercise_id", body.exercise_id)
    _check_text("code", body.code)
    size = len(body.code.encode("utf-8"))
    if size > settings.max_code_bytes:
        raise HTTPException(413, detail=f"code is {size} bytes; the limit is "
                                        f"{settings.max_code_bytes} bytes")
    _, exercise = find_exercise(body.exercise_id, settings)
    if not grading.available:
        raise HTTPException(503, detail="grading is unavailable on this server: "
                                        + grading.detail, headers={"Retry-After": "300"})
    undo = _admit(client_key, address, session, settings, limits)
    try:
        grading.pool.reserve()
    except QueueFull as full:
        undo()
        raise HTTPException(503, detail="the grading queue is full; try again shortly",
                            headers={"Retry-After": retry_after(full.retry_after_s)}) from None
    try:
        sub = Submission(id=uuid.uuid4().hex, client_hash=client_key, exercise_id=exercise.id,
                         code=body.code, status="queued")
        session.add(sub)
        session.commit()
    except BaseException:
        grading.pool.release()
        undo()
        raise
    grading.pool.enqueue(sub.id, client=client_key)
    response.headers["Location"] = f"/api/submissions/{sub.id}"
    return SubmissionCreated(id=sub.id, status="queued")


@router.get("/{submission_id}", response_model=SubmissionPublic, responses={
    401: {"description": "no client token, or one this server did not issue"},
    404: {"description": "unknown submission, or another client's"}})
def read_submission(submission_id: str, client: ClientDep, session: SessionDep):
    """One of the caller's submissions: status, verdict and per-test report."""
    query = select(Submission).where(Submission.id == submission_id)
    if not client.admin:
        query = query.where(Submission.client_hash == client.key)
    sub = session.scalars(query).first()
    if sub is None:
        raise HTTPException(404, detail=f"unknown submission {submission_id!r}")
    return to_public(sub, full=True)


@router.get("", response_model=SubmissionsPublic, responses={
    401: {"description": "no client token, or one this server did not issue"}})
def read_submissions(client: ClientDep, session: SessionDep,
                     exercise_id: str | None = None,
                     limit: int = Query(50, ge=1, le=500),
                     offset: int = Query(0, ge=0, le=10**9)):
    """The caller's submissions, newest first (all clients' with the admin token)."""
    query = select(Submission)
    if not client.admin:
        query = query.where(Submission.client_hash == client.key)
    if exercise_id is not None:
        query = query.where(Submission.exercise_id == exercise_id)
    count = session.scalar(select(func.count()).select_from(query.subquery()))
    rows = session.scalars(query.order_by(Submission.seq.desc()).limit(limit).offset(offset)).all()
    return SubmissionsPublic(data=[to_public(s, full=False) for s in rows], count=count)
