"""The classroom's reads and writes. Everything a teacher reads is filtered by the teacher's
own id, and everything a learner reads by the learner's own client key, here and nowhere else:
the routes only translate to HTTP."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from server.classroom.tokens import TeacherTokens, new_id, new_join_code, normal_code
from server.models import Classroom, Enrollment, Submission, Teacher, utcnow


def utc(moment: dt.datetime | None) -> dt.datetime | None:
    """Aware UTC: SQLite hands back naive values (stored as UTC), a client may send any zone."""
    if moment is None:
        return None
    if moment.tzinfo is None:
        return moment.replace(tzinfo=dt.timezone.utc)
    return moment.astimezone(dt.timezone.utc)


# ---------------------------------------------------------------------------------- teachers

def create_teacher(session: Session, tokens: TeacherTokens, name: str) -> tuple[Teacher, str]:
    token, hashed = tokens.mint()
    teacher = Teacher(id=new_id(), token_hash=hashed, name=name, created_at=utcnow())
    session.add(teacher)
    session.commit()
    return teacher, token


def teacher_for(session: Session, tokens: TeacherTokens, token: str) -> Teacher | None:
    """The teacher a credential names, if this server minted it and it is not revoked."""
    hashed = tokens.verify(token)
    if hashed is None:
        return None
    return session.scalars(select(Teacher).where(
        Teacher.token_hash == hashed, Teacher.revoked_at.is_(None))).first()


def revoke_teacher(session: Session, teacher_id: str) -> Teacher | None:
    teacher = session.get(Teacher, teacher_id)
    if teacher is not None and teacher.revoked_at is None:
        teacher.revoked_at = utcnow()
        session.commit()
    return teacher


def list_teachers(session: Session) -> list[Teacher]:
    return list(session.scalars(select(Teacher).order_by(Teacher.created_at)))


# ----------------------------------------------------------------------------------- classes

def create_class(session: Session, teacher: Teacher, *, name: str, exercises: list[str],
                 lessons: list[str], deadline: dt.datetime | None) -> Classroom:
    for _ in range(5):  # a repeated join code (60 random bits) is retried, never shared
        klass = Classroom(id=new_id(), teacher_id=teacher.id, name=name, join_code=new_join_code(),
                          exercises=exercises, lessons=lessons, deadline=utc(deadline),
                          created_at=utcnow())
        session.add(klass)
        try:
            session.commit()
            return klass
        except IntegrityError:
            session.rollback()
    raise RuntimeError("could not find a free join code")


def classes_of(session: Session, teacher: Teacher) -> list[Classroom]:
    return list(session.scalars(select(Classroom).where(Classroom.teacher_id == teacher.id)
                                .order_by(Classroom.created_at.desc())))


def class_of(session: Session, teacher: Teacher, class_id: str) -> Classroom | None:
    """The teacher's own class; another teacher's is None, exactly as an unknown one."""
    return session.scalars(select(Classroom).where(
        Classroom.id == class_id, Classroom.teacher_id == teacher.id)).first()


def learner_counts(session: Session, class_ids: list[str]) -> dict[str, int]:
    if not class_ids:
        return {}
    rows = session.execute(select(Enrollment.class_id, func.count()).where(
        Enrollment.class_id.in_(class_ids)).group_by(Enrollment.class_id))
    return {class_id: count for class_id, count in rows}


def enrollments(session: Session, klass: Classroom) -> list[Enrollment]:
    return list(session.scalars(select(Enrollment).where(Enrollment.class_id == klass.id)
                                .order_by(Enrollment.joined_at, Enrollment.id)))


# ---------------------------------------------------------------------------------- learners

def _enrollment(session: Session, klass: Classroom, client_key: str) -> Enrollment | None:
    return session.scalars(select(Enrollment).where(
        Enrollment.class_id == klass.id, Enrollment.client_hash == client_key)).first()


def join(session: Session, client_key: str, typed_code: str, display_name: str,
         max_learners: int | None = None):
    """Link the client to the class the code names (again: the display name is updated).
    None when no class has that code; "full" when it already holds ``max_learners`` others."""
    code = normal_code(typed_code)
    klass = None if code is None else session.scalars(
        select(Classroom).where(Classroom.join_code == code)).first()
    if klass is None:
        return None
    enrollment = _enrollment(session, klass, client_key)
    if enrollment is None:
        if max_learners is not None and learner_counts(session, [klass.id]).get(klass.id, 0) >= max_learners:
            return "full"
        enrollment = Enrollment(id=new_id(), class_id=klass.id, client_hash=client_key,
                                display_name=display_name, joined_at=utcnow())
        session.add(enrollment)
    else:
        enrollment.display_name = display_name
    try:
        session.commit()
    except IntegrityError:  # the same client joining twice at once: the other request won
        session.rollback()
        enrollment = _enrollment(session, klass, client_key)
    return klass, enrollment


def joined_classes(session: Session, client_key: str) -> list[tuple[Classroom, Enrollment]]:
    rows = session.execute(select(Classroom, Enrollment).join(
        Enrollment, Enrollment.class_id == Classroom.id).where(
        Enrollment.client_hash == client_key).order_by(Enrollment.joined_at.desc()))
    return [(klass, enrollment) for klass, enrollment in rows]


def enrollment_of(session: Session, klass: Classroom, learner_id: str) -> Enrollment | None:
    return session.scalars(select(Enrollment).where(
        Enrollment.id == learner_id, Enrollment.class_id == klass.id)).first()


def _class_work(klass: Classroom, enrollment: Enrollment, exercise_id: str | None):
    """What a class may read of a learner: submissions to the class's exercises made since the
    learner joined it (a learner who joins shares the class's work from then on, no more)."""
    wanted = list(klass.exercises)
    if exercise_id is not None:
        wanted = [exercise_id] if exercise_id in wanted else []
    return (Submission.client_hash == enrollment.client_hash, Submission.exercise_id.in_(wanted),
            Submission.created_at >= enrollment.joined_at)


def learner_submissions(session: Session, klass: Classroom, enrollment: Enrollment,
                        exercise_id: str | None, *, limit: int, offset: int) -> tuple[int, list[Submission]]:
    """One page of a learner's class work, newest first, and how many there are in all."""
    where = _class_work(klass, enrollment, exercise_id)
    count = session.scalar(select(func.count()).select_from(Submission).where(*where))
    rows = session.scalars(select(Submission).where(*where).order_by(Submission.seq.desc())
                           .limit(limit).offset(offset))
    return count, list(rows)


def learner_submission(session: Session, klass: Classroom, enrollment: Enrollment,
                       submission_id: str) -> Submission | None:
    return session.scalars(select(Submission).where(
        Submission.id == submission_id, *_class_work(klass, enrollment, None))).first()


def is_late(klass: Classroom, created_at: dt.datetime) -> bool:
    deadline = utc(klass.deadline)
    return deadline is not None and utc(created_at) > deadline
