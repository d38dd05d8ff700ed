import datetime as dt
import uuid

from fastapi import APIRouter, HTTPException, Query, Response
from sqlalchemy import func, select

from server.core.ratelimit import retry_after
from server.deps import ClientDep, GradingDep, LimiterDep, SessionDep, SettingsDep
from server.grading.pool import QueueFull
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
    413: {"description": "code larger than 64 KiB"},
    422: {"description": "invalid body or client token"},
    429: {"description": "too many submissions from this client; see Retry-After"},
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
        report=sub.report if full else None, error=sub.error, created_at=_utc(sub.created_at),
        started_at=_utc(sub.started_at), finished_at=_utc(sub.finished_at),
        code=sub.code if full else None,
    )


@router.post("", status_code=202, response_model=SubmissionCreated, responses=ERRORS)
def create_submission(body: SubmissionCreate, response: Response, client: ClientDep,
                      session: SessionDep, settings: SettingsDep, grading: GradingDep,
                      limiter: LimiterDep):
    """Store a submission and queue it for grading on the public and hidden tests."""
    size = len(body.code.encode("utf-8", "surrogatepass"))
    if size > settings.max_code_bytes:
        raise HTTPException(413, detail=f"code is {size} bytes; the limit is "
                                        f"{settings.max_code_bytes} bytes")
    exercise = find_exercise(body.exercise_id, settings)
    if not grading.available:
        raise HTTPException(503, detail="grading is unavailable on this server: "
                                        + grading.detail, headers={"Retry-After": "300"})
    wait = limiter.check(client.key)
    if wait:
        raise HTTPException(429, detail=f"too many submissions: at most {limiter.limit} every "
                                        f"{limiter.window_s:g} s", headers={"Retry-After": retry_after(wait)})
    try:
        grading.pool.reserve()
    except QueueFull as full:
        limiter.undo(client.key)
        raise HTTPException(503, detail="the grading queue is full; try again shortly",
                            headers={"Retry-After": retry_after(full.retry_after_s)}) from None
    try:
        sub = Submission(id=uuid.uuid4().hex, client_hash=client.key, exercise_id=exercise.id,
                         code=body.code, status="queued")
        session.add(sub)
        session.commit()
    except BaseException:
        grading.pool.release()
        limiter.undo(client.key)
        raise
    grading.pool.enqueue(sub.id)
    response.headers["Location"] = f"/api/submissions/{sub.id}"
    return SubmissionCreated(id=sub.id, status="queued")


@router.get("/{submission_id}", response_model=SubmissionPublic,
            responses={404: {"description": "unknown submission, or another client's"}})
def read_submission(submission_id: str, client: ClientDep, session: SessionDep):
    """One of the caller's submissions: status, verdict and per-test report."""
    query = select(Submission).where(Submission.id == submission_id)
    if not client.admin:
        query = query.where(Submission.client_hash == client.key)
    sub = session.scalars(query).first()
    if sub is None:
        raise HTTPException(404, detail=f"unknown submission {submission_id!r}")
    return to_public(sub, full=True)


@router.get("", response_model=SubmissionsPublic)
def read_submissions(client: ClientDep, session: SessionDep,
                     exercise_id: str | None = None,
                     limit: int = Query(50, ge=1, le=500), offset: int = Query(0, ge=0)):
    """The caller's submissions, newest first (all clients' with the admin token)."""
    query = select(Submission)
    if not client.admin:
        query = query.where(Submission.client_hash == client.key)
    if exercise_id is not None:
        query = query.where(Submission.exercise_id == exercise_id)
    count = session.scalar(select(func.count()).select_from(query.subquery()))
    rows = session.scalars(query.order_by(Submission.seq.desc()).limit(limit).offset(offset)).all()
    return SubmissionsPublic(data=[to_public(s, full=False) for s in rows], count=count)
