"""Teacher credentials: issued and revoked by the server's admin (or ``python -m server
teacher``); a teacher reads only the classes it made (README, "Classes")."""

from fastapi import APIRouter, HTTPException, Response

from server.classroom.auth import TeacherDep, TeacherTokensDep
from server.classroom.schemas import TeacherCreate, TeacherCreated, TeacherPublic, TeachersPublic
from server.classroom.store import create_teacher, list_teachers, revoke_teacher, utc
from server.deps import ClientDep, SessionDep

router = APIRouter(prefix="/teachers", tags=["classes"])
ADMIN_ONLY = {401: {"description": "no admin token (Authorization: Bearer ...), or a wrong one"}}


def _require_admin(client) -> None:
    if not client.admin:
        raise HTTPException(401, detail="this needs the admin token (Authorization: Bearer ...)",
                            headers={"WWW-Authenticate": "Bearer"})


def public(teacher) -> TeacherPublic:
    return TeacherPublic(id=teacher.id, name=teacher.name, created_at=utc(teacher.created_at),
                         revoked_at=utc(teacher.revoked_at))


@router.post("", status_code=201, response_model=TeacherCreated, responses=ADMIN_ONLY)
def create(body: TeacherCreate, client: ClientDep, session: SessionDep, tokens: TeacherTokensDep):
    """A new teacher credential (admin only). The token is in this answer and nowhere else."""
    _require_admin(client)
    teacher, token = create_teacher(session, tokens, body.name)
    return TeacherCreated(**public(teacher).model_dump(), token=token)


@router.get("", response_model=TeachersPublic, responses=ADMIN_ONLY)
def read_all(client: ClientDep, session: SessionDep):
    """Every teacher (admin only), revoked ones included."""
    _require_admin(client)
    data = [public(t) for t in list_teachers(session)]
    return TeachersPublic(data=data, count=len(data))


@router.delete("/{teacher_id}", status_code=204, responses={
    **ADMIN_ONLY, 404: {"description": "unknown teacher"}})
def revoke(teacher_id: str, client: ClientDep, session: SessionDep):
    """Revoke a teacher credential (admin only): its next request is 401. Its classes stay."""
    _require_admin(client)
    if revoke_teacher(session, teacher_id) is None:
        raise HTTPException(404, detail=f"unknown teacher {teacher_id!r}")
    return Response(status_code=204)


@router.get("/me", response_model=TeacherPublic, responses={
    401: {"description": "no teacher credential, or one not valid"}})
def read_me(teacher: TeacherDep):
    """Who this teacher credential names (the teacher's page checks a pasted credential)."""
    return public(teacher)
