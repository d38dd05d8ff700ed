"""Classes: a teacher makes one and reads its grid, mistake map and exports; a learner joins one
with its code. A teacher sees only its own classes (another's is 404, as an unknown one); a
learner sees only the classes it joined, never the other learners (README, "Classes")."""

from fastapi import APIRouter, HTTPException, Query, Request
from fastapi.responses import Response, StreamingResponse

from server.catalog import catalog_for
from server.classroom import dashboard as boards
from server.classroom import export, store
from server.classroom.auth import TeacherDep
from server.classroom.schemas import (ClassCreate, ClassesPublic, ClassPublic, ClassUpdate,
                                      Dashboard, JoinedClass, JoinedClasses, JoinRequest,
                                      LearnerSubmissionFull, LearnerSubmissions)
from server.core.ratelimit import retry_after
from server.deps import ClientDep, NetworkDep, SessionDep, SettingsDep
from server.grading.harness import UnknownExercise
from server.grading.report import bounded

router = APIRouter(prefix="/classes", tags=["classes"])
MAX_LEARNERS = 2000
TEACHER_ERRORS = {401: {"description": "no teacher credential, or one not valid"},
                  404: {"description": "unknown class, or another teacher's"}}


def _exercise_ids(wanted: list[str], settings) -> list[str]:
    """Ids as the catalog names them, in the order given, each once; 422 naming an unknown one."""
    catalog, ids = catalog_for(settings.exercises_dir), []
    for name in wanted:
        try:
            ident = catalog.find(name).id
        except UnknownExercise as exc:
            raise HTTPException(422, detail=str(exc)) from None
        if ident not in ids:
            ids.append(ident)
    return ids


def _public(klass, learners: int) -> ClassPublic:
    return ClassPublic(id=klass.id, name=klass.name, join_code=klass.join_code,
                       exercises=list(klass.exercises), lessons=list(klass.lessons),
                       deadline=store.utc(klass.deadline), created_at=store.utc(klass.created_at),
                       learners=learners)


def _own(session, teacher, class_id: str):
    klass = store.class_of(session, teacher, class_id)
    if klass is None:
        raise HTTPException(404, detail=f"unknown class {class_id!r}")
    return klass


@router.post("", status_code=201, response_model=ClassPublic, responses={
    401: TEACHER_ERRORS[401], 422: {"description": "invalid body or unknown exercise"}})
def create_class(body: ClassCreate, teacher: TeacherDep, session: SessionDep, settings: SettingsDep):
    """A new class with its join code, the exercises (and lessons) assigned and a deadline."""
    klass = store.create_class(session, teacher, name=body.name,
                               exercises=_exercise_ids(body.exercises, settings),
                               lessons=list(dict.fromkeys(body.lessons)), deadline=body.deadline)
    return _public(klass, 0)


@router.get("", response_model=ClassesPublic, responses={401: TEACHER_ERRORS[401]})
def read_classes(teacher: TeacherDep, session: SessionDep):
    """This teacher's classes, newest first."""
    classes = store.classes_of(session, teacher)
    counts = store.learner_counts(session, [c.id for c in classes])
    data = [_public(c, counts.get(c.id, 0)) for c in classes]
    return ClassesPublic(data=data, count=len(data))


@router.post("/join", response_model=JoinedClass, responses={
    401: {"description": "no client token"}, 404: {"description": "no class has this code"},
    409: {"description": "the class is full"}, 429: {"description": "too many wrong codes "
                                                     "from this client or network; see Retry-After"}})
def join_class(body: JoinRequest, request: Request, client: ClientDep, session: SessionDep,
               network: NetworkDep):
    """Join a class with the code its teacher gave, under a display name only the teacher sees.
    Joining again changes the display name. A wrong code is 404 and says nothing more; wrong
    codes are limited per client and per network (a right one is never counted)."""
    key = client.require_key()
    limits = request.app.state.join_limits
    ok, wait = limits.allow(key, network)
    if not ok:
        raise HTTPException(429, detail="too many wrong join codes; try again later",
                            headers={"Retry-After": retry_after(wait)})
    found = store.join(session, key, body.code, body.display_name, MAX_LEARNERS)
    if found is None:
        raise HTTPException(404, detail="no class has this code; check it with your teacher")
    limits.undo(key, network)  # a right code costs nothing: only guesses are counted
    if found == "full":
        raise HTTPException(409, detail=f"this class is full ({MAX_LEARNERS} learners)")
    klass, enrollment = found
    return _joined(klass, enrollment)


def _joined(klass, enrollment) -> JoinedClass:
    return JoinedClass(name=klass.name, display_name=enrollment.display_name,
                       exercises=list(klass.exercises), lessons=list(klass.lessons),
                       deadline=store.utc(klass.deadline), joined_at=store.utc(enrollment.joined_at))


@router.get("/joined", response_model=JoinedClasses, responses={401: {"description": "no client token"}})
def read_joined(client: ClientDep, session: SessionDep):
    """The classes this client joined (what its learner sees: name, assignments, deadline)."""
    data = [_joined(k, e) for k, e in store.joined_classes(session, client.require_key())]
    return JoinedClasses(data=data, count=len(data))


@router.get("/{class_id}", response_model=ClassPublic, responses=TEACHER_ERRORS)
def read_class(class_id: str, teacher: TeacherDep, session: SessionDep):
    klass = _own(session, teacher, class_id)
    return _public(klass, store.learner_counts(session, [klass.id]).get(klass.id, 0))


@router.patch("/{class_id}", response_model=ClassPublic, responses={
    **TEACHER_ERRORS, 422: {"description": "invalid body or unknown exercise"}})
def update_class(class_id: str, body: ClassUpdate, teacher: TeacherDep, session: SessionDep,
                 settings: SettingsDep):
    """Change the name, the assignments or the deadline (send "deadline": null to clear it)."""
    klass = _own(session, teacher, class_id)
    sent = body.model_fields_set
    if "name" in sent and body.name is not None:
        klass.name = body.name
    if "exercises" in sent and body.exercises is not None:
        klass.exercises = _exercise_ids(body.exercises, settings)
    if "lessons" in sent and body.lessons is not None:
        klass.lessons = list(dict.fromkeys(body.lessons))
    if "deadline" in sent:
        klass.deadline = store.utc(body.deadline)
    session.commit()
    return _public(klass, store.learner_counts(session, [klass.id]).get(klass.id, 0))


@router.get("/{class_id}/dashboard", response_model=Dashboard, responses=TEACHER_ERRORS)
def read_dashboard(class_id: str, teacher: TeacherDep, session: SessionDep,
                   stuck_attempts: int = Query(boards.DEFAULT_STUCK_ATTEMPTS, ge=1, le=1000)):
    """The grid (each learner's best verdict, attempts, first Accepted, late attempts, stuck
    marker per exercise) and each exercise's mistake map."""
    klass = _own(session, teacher, class_id)
    board = boards.dashboard(session, klass, stuck_attempts)
    return {"class": _public(klass, len(board["learners"])), **board}


def _summary(klass, sub) -> dict:
    report = bounded(sub.report) if type(sub.report) is dict else None
    return {"id": sub.id, "exercise_id": sub.exercise_id, "status": sub.status,
            "verdict": sub.verdict, "late": store.is_late(klass, sub.created_at),
            "created_at": store.utc(sub.created_at), "finished_at": store.utc(sub.finished_at),
            "message": report["message"] if report else None,
            "mistakes": boards.mistakes_of(report)}


def _learner(session, teacher, class_id: str, learner_id: str):
    klass = _own(session, teacher, class_id)
    enrollment = store.enrollment_of(session, klass, learner_id)
    if enrollment is None:
        raise HTTPException(404, detail=f"no learner {learner_id!r} in this class")
    return klass, enrollment


@router.get("/{class_id}/learners/{learner_id}/submissions", response_model=LearnerSubmissions,
            responses={**TEACHER_ERRORS, 404: {"description": "unknown class or learner"}})
def read_learner(class_id: str, learner_id: str, teacher: TeacherDep, session: SessionDep,
                 exercise_id: str | None = Query(None, max_length=100),
                 limit: int = Query(50, ge=1, le=200), offset: int = Query(0, ge=0, le=10**9)):
    """One learner's work for the class (its exercises, since joining), newest first, a page at
    a time: verdicts, headlines and known mistakes; each one's code and report on its own."""
    klass, enrollment = _learner(session, teacher, class_id, learner_id)
    count, subs = store.learner_submissions(session, klass, enrollment, exercise_id,
                                            limit=limit, offset=offset)
    return LearnerSubmissions(learner=enrollment.id, display_name=enrollment.display_name,
                              data=[_summary(klass, s) for s in subs], count=count)


@router.get("/{class_id}/learners/{learner_id}/submissions/{submission_id}",
            response_model=LearnerSubmissionFull,
            responses={**TEACHER_ERRORS, 404: {"description": "unknown class, learner or submission"}})
def read_learner_submission(class_id: str, learner_id: str, submission_id: str,
                            teacher: TeacherDep, session: SessionDep):
    """One submission of the learner's class work, with its code and public report."""
    klass, enrollment = _learner(session, teacher, class_id, learner_id)
    sub = store.learner_submission(session, klass, enrollment, submission_id)
    if sub is None:
        raise HTTPException(404, detail=f"no submission {submission_id!r} in this learner's class work")
    return {**_summary(klass, sub), "code": sub.code,
            "report": bounded(sub.report) if type(sub.report) is dict else None}


@router.get("/{class_id}/export.csv", response_class=Response, responses={
    **TEACHER_ERRORS, 200: {"content": {"text/csv": {}}, "description": "the grid as CSV"}})
def export_csv(class_id: str, teacher: TeacherDep, session: SessionDep):
    """The grid as CSV: a row per learner, five columns per exercise."""
    klass = _own(session, teacher, class_id)
    body = export.grid_csv(boards.dashboard(session, klass))
    return Response(body, media_type="text/csv; charset=utf-8", headers={
        "Content-Disposition": f'attachment; filename="class-{klass.id}.csv"'})


@router.get("/{class_id}/export.json", response_class=StreamingResponse, responses={
    **TEACHER_ERRORS, 200: {"content": {"application/json": {}},
                            "description": "every submission of the class"}})
def export_json(class_id: str, request: Request, teacher: TeacherDep, session: SessionDep):
    """Every submission of the class's learners to its exercises, with code and report."""
    klass = _own(session, teacher, class_id)
    return StreamingResponse(export.submissions_json(request.app.state.sessions, klass.id),
                             media_type="application/json", headers={
                                 "Content-Disposition": f'attachment; filename="class-{klass.id}.json"'})
