"""Storage (SQLAlchemy table classes) and the API's shapes (pydantic models)."""

import datetime as dt
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import JSON, DateTime, Float, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from harness.vocabulary import VERDICTS

Status = Literal["queued", "running", "done", "error"]


def utcnow() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc)


class Base(DeclarativeBase):
    pass


class Submission(Base):
    """One submitted solution; `seq` orders history, `id` is the public, unguessable name."""

    __tablename__ = "submissions"
    # A class's dashboard aggregates each learner's submissions of each exercise from this
    # index alone (it covers every column the aggregate reads: SQLite would otherwise read past
    # the code and the report of each row to reach created_at).
    __table_args__ = (Index("ix_submissions_class_board", "client_hash", "exercise_id", "status",
                            "verdict", "created_at", "seq"),)

    seq: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    id: Mapped[str] = mapped_column(String(32), unique=True, index=True)
    client_hash: Mapped[str] = mapped_column(String(64), index=True)
    exercise_id: Mapped[str] = mapped_column(String(100), index=True)
    code: Mapped[str] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(16), index=True, default="queued")
    verdict: Mapped[str | None] = mapped_column(String(40), nullable=True)
    report: Mapped[dict | None] = mapped_column(JSON, nullable=True)  # public view only
    error: Mapped[str | None] = mapped_column(Text, nullable=True)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    worker: Mapped[str | None] = mapped_column(String(100), nullable=True)  # host:pid grading it
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    started_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    finished_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class RateEvent(Base):
    """One counted request of a rate limit kept in the database (scaled mode): ``key`` names
    the client (or address), ``at`` is the wall-clock time in seconds since the epoch."""

    __tablename__ = "rate_events"
    __table_args__ = (Index("ix_rate_events_key_at", "key", "at"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    key: Mapped[str] = mapped_column(String(128))
    at: Mapped[float] = mapped_column(Float)


# ------------------------------------------------------------------------- classroom tables


class Teacher(Base):
    """A teacher: a server-issued credential (``t1.<id>.<mac>``; only a hash of ``id`` is kept)
    that reads the classes it made. ``revoked_at`` set: the credential is refused at once."""

    __tablename__ = "teachers"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    name: Mapped[str] = mapped_column(String(100))
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    revoked_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class Classroom(Base):
    """A teacher's class: the exercises (and lessons) assigned, a deadline, and the join code
    learners enter. Submissions are not copied: a class reads its learners' submissions."""

    __tablename__ = "classes"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    teacher_id: Mapped[str] = mapped_column(String(32), ForeignKey("teachers.id"), index=True)
    name: Mapped[str] = mapped_column(String(100))
    join_code: Mapped[str] = mapped_column(String(32), unique=True)
    exercises: Mapped[list] = mapped_column(JSON)
    lessons: Mapped[list] = mapped_column(JSON)
    deadline: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class Enrollment(Base):
    """A learner's server-issued identity (``client_hash``) linked to a class under a display
    name the teacher sees; ``id`` is the learner's name in the class's URLs (never the hash)."""

    __tablename__ = "enrollments"
    __table_args__ = (UniqueConstraint("class_id", "client_hash", name="uq_enrollments_class_client"),)

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    class_id: Mapped[str] = mapped_column(String(32), ForeignKey("classes.id"), index=True)
    client_hash: Mapped[str] = mapped_column(String(64), index=True)
    display_name: Mapped[str] = mapped_column(String(60))
    joined_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class LearnerProgress(Base):
    """A learner's progress (server/progress.py: what the facts are and how two copies merge),
    one row per server-issued identity. ``version`` grows by one with every write: a write
    names the version it merged into, so two tabs writing at once never lose a fact."""

    __tablename__ = "learner_progress"

    client_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    data: Mapped[dict] = mapped_column(JSON)
    version: Mapped[int] = mapped_column(Integer, default=1)
    updated_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


# ------------------------------------------------------------------------------- API shapes


class SubmissionCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    exercise_id: str = Field(min_length=1, max_length=100, examples=["01-graph-walk"])
    code: str = Field(description="the learner's file, UTF-8; larger than the server's "
                                  "KAEL_MAX_CODE_BYTES (64 KiB by default) is 413")


class TestResultPublic(BaseModel):
    name: str
    status: Literal["passed", "failed", "error"]
    hidden: bool
    description: str | None = Field(None, description="null for hidden tests")
    message: str | None = Field(None, description="why it failed; always null for hidden tests")
    duration_ms: float | None = Field(None, description="null for hidden tests")


class TestSummary(BaseModel):
    total: int
    passed: int
    failed: int
    error: int


class HiddenSummary(BaseModel):
    """Hidden tests, as coarsely as is useful: no status per test (see the threat model)."""
    total: int
    passed: int
    first_failed: str | None = Field(None, description="the first hidden test that did not pass")


class SyntaxErrorInfo(BaseModel):
    message: str
    line: int
    column: int
    text: str


class KnownMistake(BaseModel):
    """A hand-written mutant the public outcomes match, and what to tell the learner."""
    mutant: str
    message: dict[str, str] = Field(description="the explanation in each language: {en, zh}")


class ReportPublic(BaseModel):
    verdict: Literal[VERDICTS]  # type: ignore[valid-type]  # harness/verdicts.json, the one list
    message: str
    tests: list[TestResultPublic] = Field(description="the public tests, from the run without hidden tests")
    hidden: HiddenSummary | None = None
    summary: TestSummary
    syntax_error: SyntaxErrorInfo | None = None
    output: str | None = Field(None, description="what the program printed in the public tests")
    backend: str | None = None
    mistakes: list[KnownMistake] = Field(default_factory=list,
                                         description="known mistakes the public run's outcomes match")
    trace_diff: dict | None = Field(None, description="engine exercises: the first failing public "
                                    "case traced under your code and the reference (exercises/harness/README.md)")


class SubmissionCreated(BaseModel):
    id: str
    status: Status


class SubmissionPublic(BaseModel):
    id: str
    exercise_id: str
    status: Status
    verdict: str | None = None
    report: ReportPublic | None = Field(None, description="one submission only, once done")
    error: str | None = Field(None, description="why status is error (the judge failed)")
    created_at: dt.datetime
    started_at: dt.datetime | None = None
    finished_at: dt.datetime | None = None
    code: str | None = Field(None, description="the submitted code (one submission only)")


class SubmissionsPublic(BaseModel):
    data: list[SubmissionPublic]
    count: int


class ExerciseSummary(BaseModel):
    id: str = Field(examples=["graph-walk"])
    number: int
    title: str = Field(description="the English title")
    titles: dict[str, str] = Field(description="by language: en, zh")
    difficulty: str = Field(description="easy, medium or hard")
    topics: list[str] = []


class CaseSummary(BaseModel):
    name: str
    description: str


class ExercisePublic(ExerciseSummary):
    time_limit_s: float
    memory_mb: int
    solution_file: str = Field(description="the file the learner edits")
    module: str
    test_file: str
    statement: dict[str, str] = Field(description="Markdown by language: en, zh")
    hints: dict[str, str] = Field(description="Markdown by language: en, zh")
    starter: str
    public_tests: str = Field(description="source of the public tests")
    public_cases: list[CaseSummary]
    hidden_case_count: int


class ExercisesPublic(BaseModel):
    data: list[ExerciseSummary]
    count: int


class Health(BaseModel):
    status: Literal["ok"]
    grading: Literal["sandbox", "unsandboxed", "unavailable"]
    grading_detail: str
    workers: int
    queued: int
    running: int
    pyodide_url: str | None
    wheel_url: str | None
    frontend_built: bool
