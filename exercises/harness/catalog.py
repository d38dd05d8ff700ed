"""The exercises on disk: metadata, statements, hints, starter, tests (standard library only).

An exercise is a folder ``exercises/NN-slug/``::

    .meta/config.json          id, number, titles (en, zh), difficulty, topics, limits, files
    .meta/reference.py         the reference solution (never shown, never sent to a child)
    .meta/hidden_test.py       hidden test cases
    .meta/mutants/*.diff       plausible wrong solutions the tests must reject, as diffs
                               against .meta/reference.py
    .meta/variants/*.diff      correct solutions written differently, which must be Accepted
    .docs/instructions.md      statement (English); instructions.zh.md (Chinese)
    .docs/hints.md             hints (English); hints.zh.md (Chinese)
    <solution>.py              the starter the learner edits (files.solution)
    <solution>_test.py         public test cases (files.test)

A test file holds test cases: functions ``test_*(m)`` that take the submission module and return
plain data. Its first docstring line says what the case calls; public cases may carry the value
they expect (``test_x.expected = ...``) so that they can run in the browser without the
reference; ``RTOL``/``ATOL`` at module level (or ``test_x.rtol``/``test_x.atol``) set the float
tolerance. A hidden case with ``test_x.min_accuracy = 0.95`` is scored instead of compared: it
returns ``{"predictions": [...], "labels": [...]}`` and passes when at least that fraction of its
predictions equal the labels of the reference's run. A hidden case with ``test_x.given =
"data_y"`` takes a second argument: ``data_y()`` (a function of the same file) runs in the
reference's child only and returns ``{"input", "answer"}``; a submission's child gets only the
input, and its value is compared with (or scored against) the answer, here. Test files are read
with ``ast`` here; only the child imports them.
"""

from __future__ import annotations

import ast
import difflib
import functools
import json
import threading
from dataclasses import dataclass, field
from pathlib import Path

from .compare import Tolerance
from .patch import PatchError, apply_patch

# How many times the statement's (CPU) time limit the wall clock allows a run (Exercise.limits).
WALL_FACTOR = 3

__all__ = ["Exercise", "Case", "UnknownExercise", "load_all", "find", "default_root", "parse_cases",
           "parse_source"]

LANGS = ("en", "zh")


def default_root() -> Path:
    return Path(__file__).resolve().parent.parent


class UnknownExercise(LookupError):
    def __init__(self, wanted: str, close: list):
        self.wanted = wanted
        self.close = close
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        super().__init__(f"unknown exercise {wanted!r}{hint}")


@dataclass(frozen=True)
class Case:
    """One test case as the parent sees it (from the test file's syntax tree)."""

    name: str
    description: str
    hidden: bool
    tolerance: Tolerance
    has_expected: bool = False
    expected: object = None
    line: int = 0
    min_accuracy: float | None = None
    given: str | None = None  # a data function of the test file, run in the reference's child only


# CPython 3.11 keeps the recursion depth of its AST constructor in state shared by every thread, so
# ``ast.parse`` called from several threads at once can fail with "SystemError: AST constructor
# recursion depth mismatch" (python/cpython#106905). The server grades in threads and the tests
# grade many submissions at once: every syntax tree the harness builds is built under this lock.
_AST_LOCK = threading.Lock()


def parse_source(source: str, filename: str = "<unknown>") -> ast.Module:
    """``ast.parse(source, filename)``, one thread at a time (see ``_AST_LOCK``)."""
    with _AST_LOCK:
        return ast.parse(source, filename)


def parse_cases(source: str, *, hidden: bool, filename: str = "<test>") -> list:
    """The cases of a test file, in file order, with docstrings, tolerances and inline expected
    values. Parsed once per (source, hidden, filename): grading reads them on every run."""
    return list(_parse_cases(source, hidden, filename))


@functools.lru_cache(maxsize=128)
def _parse_cases(source: str, hidden: bool, filename: str) -> tuple:
    tree = parse_source(source, filename)
    rtol, atol = 1e-4, 1e-6
    functions = []
    attrs: dict = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
            functions.append(node)
        elif isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name) and target.id in ("RTOL", "ATOL"):
                value = ast.literal_eval(node.value)
                if target.id == "RTOL":
                    rtol = value
                else:
                    atol = value
            elif (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
                  and target.value.id.startswith("test_")):
                attrs.setdefault(target.value.id, {})[target.attr] = ast.literal_eval(node.value)
    names = [f.name for f in functions]
    if len(set(names)) != len(names):
        raise ValueError(f"{filename}: two test cases share a name")
    cases = []
    for f in functions:
        doc = ast.get_docstring(f) or f.name
        extra = attrs.get(f.name, {})
        cases.append(
            Case(
                name=f.name,
                description=doc.strip().splitlines()[0],
                hidden=hidden,
                tolerance=Tolerance(extra.get("rtol", rtol), extra.get("atol", atol)),
                has_expected="expected" in extra,
                expected=extra.get("expected"),
                line=f.lineno,
                min_accuracy=extra.get("min_accuracy"),
                given=_given(f.name, extra.get("given"), hidden, tree, filename),
            )
        )
    return tuple(cases)


def _given(case: str, data: str | None, hidden: bool, tree: ast.Module, filename: str):
    """The data function named by ``test_x.given``, checked: a hidden case, and a function of the
    same file that takes no argument."""
    if data is None:
        return None
    functions = {f.name: f for f in tree.body if isinstance(f, ast.FunctionDef)}
    f = functions.get(data)
    if not hidden or type(data) is not str or f is None or f.args.args or data.startswith("test_"):
        raise ValueError(f"{filename}: {case}.given must name a function without arguments (not a "
                         f"test case) of the same hidden test file")
    return data


@dataclass
class Exercise:
    path: Path
    config: dict = field(repr=False)

    # -- metadata ----------------------------------------------------------------------------------
    @property
    def id(self) -> str:
        return self.config["id"]

    @property
    def number(self) -> int:
        return int(self.config["number"])

    @property
    def dirname(self) -> str:
        return self.path.name

    def title(self, lang: str = "en") -> str:
        titles = self.config["title"]
        return titles.get(lang) or titles["en"]

    @property
    def difficulty(self) -> str:
        return self.config["difficulty"]

    @property
    def topics(self) -> list:
        return list(self.config.get("topics", []))

    @property
    def time_limit_s(self) -> float:
        return float(self.config.get("time_limit_s", 10))

    @property
    def memory_mb(self) -> int:
        return int(self.config.get("memory_mb", 512))

    @property
    def solution_file(self) -> str:
        return self.config["files"]["solution"]

    @property
    def module_name(self) -> str:
        return Path(self.solution_file).stem

    @property
    def test_file(self) -> str:
        return self.config["files"]["test"]

    def limits(self):
        """The statement's time limit is CPU time (``cpu_s``); the wall clock allows
        ``WALL_FACTOR`` times as much, for a run slowed by a busy machine rather than by its code
        (a verdict must not depend on what else the machine runs) or one that waits."""
        from .runner import Limits

        return Limits(time_s=self.time_limit_s * WALL_FACTOR, cpu_s=self.time_limit_s, memory_mb=self.memory_mb)

    # -- texts ---------------------------------------------------------------------------------------
    def _doc(self, stem: str, lang: str) -> str:
        if lang not in LANGS:
            raise ValueError(f"unknown language {lang!r}; choose one of {', '.join(LANGS)}")
        name = f"{stem}.md" if lang == "en" else f"{stem}.{lang}.md"
        return (self.path / ".docs" / name).read_text(encoding="utf-8")

    def statement(self, lang: str = "en") -> str:
        return self._doc("instructions", lang)

    def hints(self, lang: str = "en") -> str:
        return self._doc("hints", lang)

    def starter(self) -> str:
        return (self.path / self.solution_file).read_text(encoding="utf-8")

    def public_tests_source(self) -> str:
        return (self.path / self.test_file).read_text(encoding="utf-8")

    def hidden_tests_source(self) -> str:
        return (self.path / ".meta" / "hidden_test.py").read_text(encoding="utf-8")

    def reference_source(self) -> str:
        return (self.path / ".meta" / "reference.py").read_text(encoding="utf-8")

    def mutants(self) -> dict:
        """``{name: source}`` of the mutants (plausible wrong solutions): each is stored as a
        unified diff against the reference solution, ``.meta/mutants/<name>.diff``."""
        return self._patched("mutants")

    def variants(self) -> dict:
        """``{name: source}`` of correct solutions written differently from the reference (a FIFO
        ready queue, reverse post-order, ...), which must be Accepted too: the tests check
        behaviour, not a shape of code. Stored like mutants, ``.meta/variants/<name>.diff``."""
        return self._patched("variants")

    def _patched(self, kind: str) -> dict:
        folder = self.path / ".meta" / kind
        if not folder.is_dir():
            return {}
        reference = self.reference_source()
        out = {}
        for p in sorted(folder.glob("*.diff")):
            try:
                out[p.stem] = apply_patch(reference, p.read_text(encoding="utf-8"))
            except PatchError as exc:
                raise PatchError(f"{p}: {exc}") from None
        return out

    def public_cases(self) -> list:
        return parse_cases(self.public_tests_source(), hidden=False, filename=self.test_file)

    def hidden_cases(self) -> list:
        return parse_cases(self.hidden_tests_source(), hidden=True, filename="hidden_test.py")

    def cases(self, public_only: bool = False) -> list:
        cases = self.public_cases() + ([] if public_only else self.hidden_cases())
        names = [c.name for c in cases]
        if len(set(names)) != len(names):
            twice = sorted({n for n in names if names.count(n) > 1})
            raise ValueError(f"{self.id}: public and hidden tests share the names {', '.join(twice)}")
        return cases

    def summary(self, lang: str = "en") -> dict:
        return {
            "id": self.id,
            "number": self.number,
            "title": self.title(lang),
            "titles": dict(self.config["title"]),
            "difficulty": self.difficulty,
            "topics": self.topics,
        }

    def public_dict(self) -> dict:
        """Everything a learner may see, as JSON-able data (for the server's API and the browser):
        no hidden tests, no reference, no mutants."""
        return {
            **self.summary(),
            "time_limit_s": self.time_limit_s,
            "memory_mb": self.memory_mb,
            "solution_file": self.solution_file,
            "module": self.module_name,
            "test_file": self.test_file,
            "statement": {lang: self.statement(lang) for lang in LANGS},
            "hints": {lang: self.hints(lang) for lang in LANGS},
            "starter": self.starter(),
            "public_tests": self.public_tests_source(),
            "public_cases": [
                {"name": c.name, "description": c.description} for c in self.public_cases()
            ],
            "hidden_case_count": len(self.hidden_cases()),
        }


def load(path: Path) -> Exercise:
    config = json.loads((path / ".meta" / "config.json").read_text(encoding="utf-8"))
    return Exercise(path=path, config=config)


def load_all(root: Path | None = None) -> list:
    """Every exercise under ``root`` (default: the ``exercises/`` folder), in number order."""
    root = Path(root) if root is not None else default_root()
    found = [load(p) for p in sorted(root.iterdir()) if (p / ".meta" / "config.json").is_file()]
    return sorted(found, key=lambda e: e.number)


def find(wanted, root: Path | None = None) -> Exercise:
    """An exercise by id (``graph-walk``), folder (``01-graph-walk``) or number (``1``, ``01``)."""
    if isinstance(wanted, Exercise):
        return wanted
    text = str(wanted).strip()
    exercises = load_all(root)
    for e in exercises:
        if text in (e.id, e.dirname) or (text.isascii() and text.isdigit() and int(text) == e.number):
            return e
    names = [e.id for e in exercises] + [e.dirname for e in exercises]
    close = difflib.get_close_matches(text, names, n=3, cutoff=0.5)
    if not close:
        close = [n for n in names if text.lower() in n.lower()][:3]
    raise UnknownExercise(text, close)
