"""Who may read a class: the teacher named by ``X-Teacher-Token`` (a credential this server
minted and has not revoked). Anything else is 401, before any class is looked up."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Header, HTTPException, Request

from server.classroom.store import teacher_for
from server.classroom.tokens import TeacherTokens
from server.deps import SessionDep
from server.models import Teacher

TEACHER_HEADER = "X-Teacher-Token"
NO_TEACHER = (f"this needs a teacher credential in {TEACHER_HEADER}; the server's admin issues "
              "one (python -m server teacher create --name NAME)")


def get_teacher_tokens(request: Request) -> TeacherTokens:
    return request.app.state.teacher_tokens


TeacherTokensDep = Annotated[TeacherTokens, Depends(get_teacher_tokens)]


def get_teacher(session: SessionDep, tokens: TeacherTokensDep,
                x_teacher_token: Annotated[str | None, Header(
                    description="a teacher credential this server issued")] = None) -> Teacher:
    if x_teacher_token is None:
        raise HTTPException(401, detail=NO_TEACHER)
    teacher = teacher_for(session, tokens, x_teacher_token)
    if teacher is None:
        raise HTTPException(401, detail=f"{TEACHER_HEADER} is not a valid teacher credential "
                                        "(not issued by this server, or revoked)")
    return teacher


TeacherDep = Annotated[Teacher, Depends(get_teacher)]
