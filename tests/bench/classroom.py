"""The class dashboard's query time for a class of 300 learners x 22 exercises x 20
submissions each (132,000 stored submissions with public reports), on SQLite and on Postgres
(a benchmark: it reports, asserts nothing).

Each database gets the schema by the real migrations, a teacher, the class, and the rows in
bulk; then, best of ``--rounds``: the dashboard (grid and mistake map), the CSV export, and
one learner's drill-down, each against a reference measured in the same run on the same
database: a bare read of the (client, exercise, verdict) of every submission of the class.

    .venv/bin/python tests/bench/classroom.py                 # SQLite and Postgres
    .venv/bin/python tests/bench/classroom.py --learners 100 --only sqlite
"""

import argparse
import datetime as dt
import random
import sys
import tempfile
import time
import uuid
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from sqlalchemy import insert, select  # noqa: E402

from server.classroom import dashboard as boards  # noqa: E402
from server.classroom import export, store  # noqa: E402
from server.classroom.tokens import TeacherTokens  # noqa: E402
from server.db import make_engine, make_sessionmaker, migrate  # noqa: E402
from server.models import Enrollment, Submission  # noqa: E402

VERDICTS = ["Accepted", "Wrong Answer", "Wrong Answer", "Runtime Error", "Syntax Error"]
MUTANTS = [f"mistake_{i}" for i in range(6)]


def report(rng, verdict) -> dict:
    """A public report of the size the judge stores: a dozen tests, maybe known mistakes."""
    tests = [{"name": f"test_case_{i}", "status": "passed" if rng.random() < 0.7 else "failed",
              "hidden": False, "description": "x = kael.tensor(...) of shape [2, 3]",
              "message": "expected [[1.0, 2.0]], got [[1.0, 2.5]]", "duration_ms": 1.25}
             for i in range(12)]
    mistakes = ([{"mutant": m, "message": {"en": f"{m}: what went wrong " * 4, "zh": f"{m}：哪里错了" * 4}}
                 for m in rng.sample(MUTANTS, rng.randint(0, 2))] if verdict != "Accepted" else [])
    return {"verdict": verdict, "message": f"{verdict}: 9/12 passed", "tests": tests,
            "summary": {"total": 12, "passed": 9, "failed": 3, "error": 0},
            "hidden": {"total": 400, "passed": 380, "first_failed": "case 37 of 400"},
            "mistakes": mistakes, "output": ""}


def populate(sessions, learners: int, exercises: list[str], per_cell: int, seed=0):
    rng = random.Random(seed)
    with sessions() as session:
        teacher, _ = store.create_teacher(session, TeacherTokens(b"bench-secret-0123456789"), "bench")
        klass = store.create_class(session, teacher, name="bench", exercises=exercises, lessons=[],
                                   deadline=dt.datetime.now(dt.timezone.utc))
        start = dt.datetime.now(dt.timezone.utc) - dt.timedelta(days=30)
        keys = [uuid.uuid4().hex * 2 for _ in range(learners)]
        session.execute(insert(Enrollment), [
            {"id": uuid.uuid4().hex, "class_id": klass.id, "client_hash": k, "display_name": f"learner {i}",
             "joined_at": start} for i, k in enumerate(keys)])
        session.commit()
        for key in keys:
            rows = []
            for ex in exercises:
                for n in range(per_cell):
                    verdict = rng.choice(VERDICTS)
                    moment = start + dt.timedelta(minutes=rng.randrange(60 * 24 * 40))
                    rows.append({"id": uuid.uuid4().hex, "client_hash": key, "exercise_id": ex,
                                 "code": "def f(x):\n    return x\n" * 10, "status": "done",
                                 "verdict": verdict, "report": report(rng, verdict), "attempts": 1,
                                 "created_at": moment, "finished_at": moment})
            session.execute(insert(Submission), rows)
            session.commit()
        return klass.id, keys[0]


def timed(fn, rounds: int) -> float:
    best = float("inf")
    for _ in range(rounds):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def measure(name: str, url: str, args) -> None:
    engine = make_engine(url)
    migrate(engine)
    sessions = make_sessionmaker(engine)
    exercises = [f"exercise-{i:02d}" for i in range(args.exercises)]
    t0 = time.perf_counter()
    class_id, first_key = populate(sessions, args.learners, exercises, args.per_cell)
    print(f"{name}: {args.learners} learners x {args.exercises} exercises x {args.per_cell} "
          f"= {args.learners * args.exercises * args.per_cell:,} submissions stored in "
          f"{time.perf_counter() - t0:.1f} s")

    def reference():
        with sessions() as session:
            session.execute(select(Submission.client_hash, Submission.exercise_id, Submission.verdict)
                            .join(Enrollment, Enrollment.client_hash == Submission.client_hash)
                            .where(Enrollment.class_id == class_id)).all()

    def board():
        with sessions() as session:
            boards.dashboard(session, session.get(store.Classroom, class_id))

    def csv():
        with sessions() as session:
            export.grid_csv(boards.dashboard(session, session.get(store.Classroom, class_id)))

    def drill():
        with sessions() as session:
            klass = session.get(store.Classroom, class_id)
            learner = session.scalars(select(Enrollment).where(Enrollment.client_hash == first_key)).one()
            store.learner_submissions(session, klass, learner.id, None)

    ref = timed(reference, args.rounds)
    print(f"  {'reference: read every row (3 columns)':44s} {ref * 1e3:9.1f} ms  (1.000x)")
    for label, fn in (("dashboard (grid + mistake map)", board), ("CSV export", csv),
                      ("one learner's submissions (440)", drill)):
        t = timed(fn, args.rounds)
        print(f"  {label:44s} {t * 1e3:9.1f} ms  ({t / ref:.3f}x reference)")
    engine.dispose()


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--learners", type=int, default=300)
    parser.add_argument("--exercises", type=int, default=22)
    parser.add_argument("--per-cell", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--only", choices=["sqlite", "postgres"])
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        if args.only != "postgres":
            measure("SQLite", f"sqlite:///{Path(tmp) / 'bench.db'}", args)
        if args.only != "sqlite":
            from server.cluster.postgres import LocalPostgres

            with LocalPostgres() as pg:
                measure("Postgres", pg.create_database("bench"), args)


if __name__ == "__main__":
    main()
