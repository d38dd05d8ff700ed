"""The scaled mode end to end: 200 submissions from 20 clients through two API servers (which
grade nothing themselves) and three grading workers on one Postgres, while a worker is killed
with SIGKILL, or while Postgres restarts. Every submission reaches exactly one final verdict,
the right one."""

import os
import signal
import time
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest
from _support import ADMIN_TOKEN, CORRECT, TERMINAL, WRONG
from conftest import wait_until
from live_server import LiveServer
from sqlalchemy import text

from server.cluster.launch import start_worker, stop_all
from server.db import make_engine

ADMIN = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
N, CLIENTS = 200, 20


class Cluster:
    def __init__(self, env: dict, logs, apis: int, workers: int):
        self.env = env
        self.engine = make_engine(env["KAEL_DATABASE_URL"])
        self.apis = []
        for i in range(apis):
            self.apis.append(LiveServer({**env, "KAEL_GRADING_WORKERS": "0"}, logs / f"api-{i}.log"))
            self.apis[-1].start()
        self.workers = [start_worker(i, env, logs / f"worker-{i}.log") for i in range(workers)]

    def wait_ready(self) -> "Cluster":
        n = len(self.workers)
        wait_until(lambda: self.sql("SELECT count(*) FROM procrastinate_workers") == n
                   or any(not w.alive() for w in self.workers), 120, f"{n} workers to register")
        assert all(w.alive() for w in self.workers), "a worker exited at start-up (see its log)"
        return self

    def sql(self, query: str, **params):
        with self.engine.connect() as conn:
            return conn.execute(text(query), params).scalar()

    def stop(self):
        stop_all([*getattr(self, "workers", []), *getattr(self, "apis", [])])
        self.engine.dispose()


@pytest.fixture
def cluster(cluster_env, tmp_path):
    made = []

    def make(apis=2, workers=3) -> Cluster:
        c = Cluster.__new__(Cluster)
        made.append(c)
        c.__init__(cluster_env, tmp_path, apis, workers)
        return c.wait_ready()

    yield make
    for c in made:
        c.stop()


def submit_all(apis) -> dict:
    """POST N submissions from CLIENTS clients, spread over the API servers: {id: source}."""
    tokens = [httpx.post(apis[i % len(apis)].url + "/api/clients").json()["token"] for i in range(CLIENTS)]
    jobs = [(apis[i % len(apis)].url, tokens[i % CLIENTS], WRONG if i % 4 == 0 else CORRECT) for i in range(N)]

    def post(job):
        url, token, source = job
        r = httpx.post(url + "/api/submissions", json={"exercise_id": "adder", "code": source},
                       headers={"X-Client-Token": token}, timeout=60)
        assert r.status_code == 202, r.text
        return r.json()["id"], source

    with ThreadPoolExecutor(max_workers=20) as pool:
        return dict(pool.map(post, jobs))


class Observer:
    """Polls the submissions through the API servers (in turn) and keeps what each one was
    seen as after it first looked final: a final verdict must never change."""

    def __init__(self, apis, ids):
        self.apis, self.ids = apis, set(ids)
        self.final: dict[str, tuple] = {}
        self.changed: list[str] = []
        self.turn = 0

    def poll(self) -> int:
        self.turn += 1
        url = self.apis[self.turn % len(self.apis)].url
        try:
            r = httpx.get(url + "/api/submissions", params={"limit": 500}, headers=ADMIN, timeout=30)
        except httpx.TransportError:
            return len(self.final)
        if r.status_code == 503:  # the database is away (restarting): come back later
            return len(self.final)
        assert r.status_code == 200, r.text
        for row in r.json()["data"]:
            if row["id"] not in self.ids or row["status"] not in TERMINAL:
                continue
            seen = (row["status"], row["verdict"], row["error"])
            if self.final.setdefault(row["id"], seen) != seen:
                self.changed.append(row["id"])
        return len(self.final)

    def until(self, count: int, timeout: float) -> None:
        wait_until(lambda: self.poll() >= count, timeout, f"{count} final verdicts")


def assert_exactly_one_right_verdict(c: Cluster, observer: Observer, sources: dict) -> None:
    observer.until(N, 300)
    wait_until(lambda: c.sql("SELECT count(*) FROM procrastinate_jobs WHERE status IN ('todo', 'doing')") == 0,
               300, "the queue to drain")  # as patient as the verdicts: at load 6 the queue took over 60 s
    observer.poll()  # once more, after the last job: nothing changed since
    assert observer.changed == []
    expected = {sid: ("done", "Accepted" if source == CORRECT else "Wrong Answer", None)
                for sid, source in sources.items()}
    assert observer.final == expected
    assert c.sql("SELECT count(*) FROM submissions") == N
    assert c.sql("SELECT count(*) FROM submissions WHERE status = 'done' AND finished_at IS NOT NULL") == N


def in_flight_of(c: Cluster, worker) -> list[str]:
    """Submissions that ``worker`` (a process) is grading."""
    with c.engine.connect() as conn:
        return list(conn.execute(text(
            "SELECT id FROM submissions WHERE status = 'running' AND worker LIKE :name"),
            {"name": f"%:{worker.pid}"}).scalars())


def freeze_while_grading(c: Cluster, worker) -> list[str]:
    """SIGSTOP ``worker`` at a moment it holds a submission, so that what it holds cannot
    finish: wait until it holds one, stop it, and look again (it may have just finished)."""
    def attempt():
        wait_until(lambda: in_flight_of(c, worker), 120, "the worker to hold a submission")
        os.killpg(worker.pid, signal.SIGSTOP)
        held = in_flight_of(c, worker)
        if not held:
            os.killpg(worker.pid, signal.SIGCONT)
        return held

    return wait_until(attempt, 180, "the worker to be stopped while it holds a submission")


def test_a_worker_killed_mid_run_loses_nothing_and_grades_nothing_twice(cluster):
    c = cluster(apis=2, workers=3)
    sources = submit_all(c.apis)
    observer = Observer(c.apis, sources)
    observer.until(30, 300)
    victim = c.workers[0]
    held = freeze_while_grading(c, victim)
    victim.kill()
    assert not victim.alive()
    assert_exactly_one_right_verdict(c, observer, sources)
    # what the dead worker held was graded again, by another, once
    for sid in held:
        assert c.sql("SELECT attempts FROM submissions WHERE id = :sid", sid=sid) == 2
    assert c.sql("SELECT max(attempts) FROM submissions") == 2
    assert all(w.alive() for w in c.workers[1:])


def test_postgres_restarted_mid_run_loses_nothing_and_grades_nothing_twice(cluster, postgres):
    c = cluster(apis=2, workers=3)
    sources = submit_all(c.apis)
    observer = Observer(c.apis, sources)
    observer.until(40, 300)
    started = c.sql("SELECT pg_postmaster_start_time()")
    postgres.restart()
    assert observer.poll() < N  # the restart came mid-run
    assert c.sql("SELECT pg_postmaster_start_time()") > started
    assert_exactly_one_right_verdict(c, observer, sources)
    assert all(w.alive() for w in c.workers)
    assert all(api.proc.poll() is None for api in c.apis)


def test_an_api_server_that_grades_too_and_a_submission_left_without_a_job(cluster_env, tmp_path):
    """KAEL_GRADING_WORKERS=1 on Postgres: the API server runs a queue worker itself. A row
    committed without its job (an API server died in between) is queued by the recovery sweep."""
    api = LiveServer({**cluster_env, "KAEL_GRADING_WORKERS": "1"}, tmp_path / "api.log").start()
    engine = make_engine(cluster_env["KAEL_DATABASE_URL"])
    try:
        assert "task queue" in api.health["grading_detail"]
        token = httpx.post(api.url + "/api/clients").json()["token"]
        ids = [httpx.post(api.url + "/api/submissions", headers={"X-Client-Token": token},
                          json={"exercise_id": "adder", "code": CORRECT}).json()["id"] for _ in range(4)]
        with engine.begin() as conn:
            conn.execute(text(
                "INSERT INTO submissions (id, client_hash, exercise_id, code, status, attempts, created_at) "
                "VALUES ('orphan', :client, 'adder', :code, 'queued', 0, NOW() - INTERVAL '1 minute')"),
                {"client": "c" * 64, "code": WRONG})

        def verdicts():
            with engine.connect() as conn:
                rows = dict(conn.execute(text("SELECT id, verdict FROM submissions WHERE status = 'done'")).all())
            return rows if len(rows) == 5 else None

        assert wait_until(verdicts, 120, "5 verdicts") == {**{sid: "Accepted" for sid in ids},
                                                           "orphan": "Wrong Answer"}
    finally:
        api.stop()
        engine.dispose()
