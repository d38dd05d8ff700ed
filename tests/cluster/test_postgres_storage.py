"""The shared store on a real Postgres: migrations run by many processes at once, the database
rate limiter and claims under concurrent callers (each its own engine, as separate servers)."""

import subprocess
import sys
import threading

from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import select, text

from server.db import head_revision, make_engine, make_sessionmaker, migrate
from server.grading.attempt import claim
from server.models import Base, Submission
from server.scaled.ratelimit import DbRateLimiter

REPO = __import__("pathlib").Path(__file__).resolve().parents[2]


def _ours(diff) -> bool:
    """Schema differences that concern our tables (procrastinate's own are not in the models)."""
    flat = diff if isinstance(diff, tuple) else diff[0]
    return not any("procrastinate" in str(part) for part in flat)


def test_migrations_from_several_processes_at_once_leave_one_schema(database_url):
    code = "import sys; from server.db import make_engine, migrate; print(migrate(make_engine(sys.argv[1])))"
    procs = [subprocess.Popen([sys.executable, "-c", code, database_url], cwd=REPO,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(3)]
    outputs = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0] * 3, [err[-2000:] for _, err in outputs]
    assert {out.strip() for out, _ in outputs} == {head_revision()}
    engine = make_engine(database_url)
    with engine.connect() as conn:
        assert [d for d in compare_metadata(MigrationContext.configure(conn), Base.metadata) if _ours(d)] == []
        assert conn.execute(text("SELECT count(*) FROM procrastinate_jobs")).scalar() == 0
    engine.dispose()


def _hammer(n_threads: int, work) -> list:
    results, lock = [], threading.Lock()
    start = threading.Barrier(n_threads)

    def run(i):
        start.wait()
        value = work(i)
        with lock:
            results.append(value)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n_threads)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


def test_the_database_limiter_admits_exactly_the_limit_across_servers(database_url):
    migrate(make_engine(database_url))
    engines = [make_engine(database_url) for _ in range(6)]
    limiters = [DbRateLimiter(make_sessionmaker(e), 25, 60) for e in engines]
    admitted = _hammer(6, lambda i: sum(limiters[i].allow("one-client")[0] for _ in range(10)))
    assert sum(admitted) == 25
    ok, wait = limiters[0].allow("one-client")
    assert not ok and 0 < wait <= 60
    assert limiters[0].allow("another-client") == (True, 0.0)
    for e in engines:
        e.dispose()


def test_one_claim_wins_among_concurrent_claimers(database_url):
    engine = make_engine(database_url)
    migrate(engine)
    sessions = make_sessionmaker(engine)
    with sessions() as s:
        s.add_all([Submission(id=f"s{i}", client_hash="c" * 64, exercise_id="adder", code="x",
                              status="queued", attempts=0) for i in range(10)])
        s.commit()
    engines = [make_engine(database_url) for _ in range(5)]
    for i in range(10):
        claims = _hammer(5, lambda k: claim(make_sessionmaker(engines[k]), f"s{i}"))
        winners = [c for c in claims if c is not None]
        assert len(winners) == 1 and winners[0].attempt == 1
    with sessions() as s:
        assert set(s.scalars(select(Submission.attempts))) == {1}
    for e in [engine, *engines]:
        e.dispose()
