"""The classroom API's shapes (pydantic). Every text a person typed is bounded and checked to be
text; nothing here is rendered as HTML anywhere (the page sets textContent)."""

from __future__ import annotations

import datetime as dt
import unicodedata
from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

MAX_EXERCISES = 100
MAX_LESSONS = 100


def plain_text(value: str) -> str:
    """Trimmed text with no control or format characters (no newlines, no bidi overrides: a
    display name cannot reorder the teacher's table), and at least one visible character."""
    value = unicodedata.normalize("NFC", value.strip())
    bad = next((c for c in value if unicodedata.category(c) in ("Cc", "Cf", "Cs", "Co", "Cn")), None)
    if bad is not None:
        raise ValueError(f"must be plain text: character U+{ord(bad):04X} is not allowed")
    if not value:
        raise ValueError("must not be empty")
    return value


def utc_deadline(value: dt.datetime | None) -> dt.datetime | None:
    """A deadline names its time zone (a bare local time means a different instant to every
    reader), and is kept in UTC; an instant past what UTC can hold is refused, not a 500."""
    if value is None:
        return None
    if value.tzinfo is None or value.utcoffset() is None:
        raise ValueError("must name its time zone, as 2026-12-24T18:00:00+01:00 or ...Z")
    try:
        return value.astimezone(dt.timezone.utc)
    except OverflowError:
        raise ValueError("is outside the dates a deadline can have") from None


Deadline = Annotated[dt.datetime | None, AfterValidator(utc_deadline)]
Name = Annotated[str, Field(min_length=1, max_length=100), AfterValidator(plain_text)]
DisplayName = Annotated[str, Field(min_length=1, max_length=60), AfterValidator(plain_text)]
Ident = Annotated[str, Field(min_length=1, max_length=100, pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")]


class TeacherCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: Name


class TeacherPublic(BaseModel):
    id: str
    name: str
    created_at: dt.datetime
    revoked_at: dt.datetime | None = None


class TeacherCreated(TeacherPublic):
    token: str = Field(description="send it in X-Teacher-Token; shown once, never stored")
    header: str = "X-Teacher-Token"


class TeachersPublic(BaseModel):
    data: list[TeacherPublic]
    count: int


class ClassCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: Name
    exercises: list[Ident] = Field(min_length=1, max_length=MAX_EXERCISES,
                                   description="exercise ids, numbers or folders; stored as ids")
    lessons: list[Ident] = Field(default_factory=list, max_length=MAX_LESSONS)
    deadline: Deadline = Field(None, description="ISO 8601 with a time zone; later "
                                      "submissions are kept and marked late")


class ClassUpdate(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: Name | None = None
    exercises: list[Ident] | None = Field(None, min_length=1, max_length=MAX_EXERCISES)
    lessons: list[Ident] | None = Field(None, max_length=MAX_LESSONS)
    deadline: Deadline = Field(None, description="null (sent explicitly) clears it")


class ClassPublic(BaseModel):
    id: str
    name: str
    join_code: str
    exercises: list[str]
    lessons: list[str]
    deadline: dt.datetime | None
    created_at: dt.datetime
    learners: int


class ClassesPublic(BaseModel):
    data: list[ClassPublic]
    count: int


class JoinRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    code: str = Field(min_length=1, max_length=40, examples=["7K3M-Q9TX-2HWD"])
    display_name: DisplayName


class JoinedClass(BaseModel):
    """What a learner sees of a class: never the other learners."""
    name: str
    display_name: str
    exercises: list[str]
    lessons: list[str]
    deadline: dt.datetime | None
    joined_at: dt.datetime


class JoinedClasses(BaseModel):
    data: list[JoinedClass]
    count: int


class Cell(BaseModel):
    """One learner on one exercise."""
    best_verdict: str | None = Field(None, description="Accepted if any attempt was, else the "
                                     "latest graded verdict; null before any graded attempt")
    attempts: int
    first_accepted_at: dt.datetime | None = None
    late: int = Field(0, description="attempts made after the class's deadline")
    stuck: bool = Field(description="many attempts and none Accepted")


class LearnerRow(BaseModel):
    id: str
    display_name: str
    joined_at: dt.datetime
    cells: dict[str, Cell]
    solved: int


class KnownMistakeShort(BaseModel):
    mutant: str
    message: dict[str, str]


class MistakeCount(BaseModel):
    mutant: str
    message: dict[str, str]
    learners: int


class ExerciseMistakes(BaseModel):
    """Over the learners whose latest graded attempt is not Accepted: what their latest wrong
    submission matched."""
    wrong: int = Field(description="learners whose latest graded attempt is not Accepted")
    known: list[MistakeCount]
    unknown: int = Field(description="of those, how many matched no known mistake")


class Dashboard(BaseModel):
    class_: ClassPublic = Field(alias="class")
    exercises: list[str]
    learners: list[LearnerRow]
    mistakes: dict[str, ExerciseMistakes]
    stuck_attempts: int = Field(description="attempts without Accepted from which a cell is stuck")

    model_config = ConfigDict(populate_by_name=True)


class LearnerSubmission(BaseModel):
    """One submission in a learner's list: what it got, and the known mistakes it matched."""
    id: str
    exercise_id: str
    status: str
    verdict: str | None
    late: bool
    created_at: dt.datetime
    finished_at: dt.datetime | None
    message: str | None = Field(None, description="the report's headline")
    mistakes: list[KnownMistakeShort] = Field(default_factory=list)


class LearnerSubmissionFull(LearnerSubmission):
    code: str
    report: dict | None = Field(None, description="the public report, as the learner saw it")


class LearnerSubmissions(BaseModel):
    learner: str
    display_name: str
    data: list[LearnerSubmission]
    count: int = Field(description="all of this learner's class work, every page")
