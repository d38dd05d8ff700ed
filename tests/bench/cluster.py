"""Scaled mode's throughput and time-to-verdict with 1, 2 and 4 grading workers, against
in-process grading with as many slots (a benchmark: it reports, asserts nothing).

For each setup: a fresh database, one API server, N submissions of an exercise from C
concurrent clients (a quarter of them the failing starter), polled until graded: throughput,
p50/p95 of the time from POST to verdict. Then 10 submissions one after another ("alone"),
with the stored timestamps split into handoff (stored to claimed by a grader) and grading
(claimed to verdict): the queue's handoff against the in-process pool's is what the queue itself
costs per submission (the defer, the NOTIFY, a worker's fetch and claim).

The scaled setups run a throw-away Postgres (Debian's binaries) with W ``python -m
server.worker`` processes of one slot each and the API server with KAEL_GRADING_WORKERS=0; the
in-process setups run the default SQLite server with KAEL_GRADING_WORKERS=W.

    .venv/bin/python tests/bench/cluster.py                  # graph-walk, 60 submissions, 1/2/4
    .venv/bin/python tests/bench/cluster.py -n 200 -c 20 --workers 1 2 4
"""

import argparse
import datetime as dt
import os
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "exercises"))
sys.path.insert(0, str(REPO / "tests"))

from grading import percentile  # noqa: E402  (tests/bench/grading.py)
from harness import catalog  # noqa: E402
from live_server import LiveServer  # noqa: E402

from server.cluster.launch import start_worker, stop_all  # noqa: E402
from server.cluster.postgres import LocalPostgres  # noqa: E402

BASE = {"KAEL_RATE_LIMIT": "0/60", "KAEL_ADDRESS_RATE_LIMIT": "0/60", "KAEL_MINT_LIMIT": "0/60",
        "KAEL_CLIENT_PENDING": "0", "KAEL_QUEUE_SIZE": "100000", "KAEL_LOG_LEVEL": "WARNING",
        "KAEL_SECRET": "bench-secret-0123456789abcdef"}


class Setup:
    """One API server, and for the queue its Postgres and workers; ``url``; ``close()``."""

    def __init__(self, kind: str, workers: int, data: str):
        self.kind, self.pg, self.workers = kind, None, []
        env = {**BASE, "KAEL_DATA_DIR": data}
        if kind == "queue":
            self.pg = LocalPostgres().start()
            env.update(KAEL_DATABASE_URL=self.pg.url, KAEL_GRADING_WORKERS="1")
            self.workers = [start_worker(i, env, Path(data) / f"worker-{i}.log") for i in range(workers)]
            self.api = LiveServer({**env, "KAEL_GRADING_WORKERS": "0"}, Path(data) / "api.log").start()
        else:
            self.api = LiveServer({**env, "KAEL_GRADING_WORKERS": str(workers)}, Path(data) / "api.log").start()
        self.url = self.api.url

    def close(self) -> None:
        stop_all([self.api, *self.workers])
        if self.pg:
            self.pg.stop()


def graded(client: httpx.Client, sid: str, every: float) -> dict:
    while True:
        r = client.get(f"/api/submissions/{sid}")
        if r.status_code == 200 and r.json()["status"] in ("done", "error"):
            return r.json()
        time.sleep(every)


def one(url: str, token: str, exercise_id: str, code: str, every: float = 0.05) -> tuple[float, dict]:
    """Seconds from POST to verdict, and the graded submission."""
    with httpx.Client(base_url=url, headers={"X-Client-Token": token}, timeout=120) as client:
        start = time.monotonic()
        r = client.post("/api/submissions", json={"exercise_id": exercise_id, "code": code})
        r.raise_for_status()
        body = graded(client, r.json()["id"], every)
        return time.monotonic() - start, body


def seconds(body: dict, since: str, until: str) -> float:
    return (dt.datetime.fromisoformat(body[until]) - dt.datetime.fromisoformat(body[since])).total_seconds()


def measure(setup: Setup, exercise, n: int, concurrency: int) -> dict:
    right, bad = exercise.reference_source(), exercise.starter()
    tokens = [httpx.post(setup.url + "/api/clients").json()["token"] for _ in range(concurrency)]
    one(setup.url, tokens[0], exercise.id, right)  # warm-up: the reference's first run
    plan = [(tokens[i % concurrency], bad if i % 4 == 0 else right) for i in range(n)]
    start = time.monotonic()
    with ThreadPoolExecutor(max_workers=concurrency) as pool:
        latencies = [t for t, _ in pool.map(lambda job: one(setup.url, job[0], exercise.id, job[1]), plan)]
    elapsed = time.monotonic() - start
    alone = [one(setup.url, tokens[0], exercise.id, right, every=0.02) for _ in range(10)]
    return {"throughput": n / elapsed, "p50": percentile(latencies, 0.5), "p95": percentile(latencies, 0.95),
            "alone": percentile([t for t, _ in alone], 0.5),
            # from the stored timestamps, no polling in them: stored -> claimed -> verdict
            "handoff": percentile([seconds(b, "created_at", "started_at") for _, b in alone], 0.5),
            "grading": percentile([seconds(b, "started_at", "finished_at") for _, b in alone], 0.5)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--exercise", default="graph-walk")
    parser.add_argument("-n", type=int, default=60, help="submissions per setup (default 60)")
    parser.add_argument("-c", "--concurrency", type=int, default=10, help="concurrent clients")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2, 4])
    args = parser.parse_args()
    exercise = catalog.find(args.exercise)
    print(f"exercise {exercise.id}: {args.n} submissions from {args.concurrency} clients per setup; "
          f"cores: {os.cpu_count()}; load average now: {os.getloadavg()[0]:.1f}")
    print(f"{'grading':<12} {'workers':>7} {'subm/s':>7} {'p50 ms':>8} {'p95 ms':>8} "
          f"{'alone p50':>10} {'handoff':>8} {'grading':>8}")
    found = {}
    for workers in args.workers:
        for kind in ("in-process", "queue"):
            with tempfile.TemporaryDirectory(prefix="kael-bench-") as data:
                setup = Setup(kind, workers, data)
                try:
                    m = found[kind, workers] = measure(setup, exercise, args.n, args.concurrency)
                finally:
                    setup.close()
            print(f"{kind:<12} {workers:>7} {m['throughput']:>7.1f} {m['p50'] * 1000:>8.0f} "
                  f"{m['p95'] * 1000:>8.0f} {m['alone'] * 1000:>10.0f} {m['handoff'] * 1000:>8.0f} "
                  f"{m['grading'] * 1000:>8.0f}", flush=True)
    print("alone: 10 submissions one after another (p50 from POST to verdict, polled every 20 ms); "
          "handoff: stored to claimed by a grader; grading: claimed to verdict (p50s)")
    for workers in args.workers:
        q, i = found["queue", workers], found["in-process", workers]
        print(f"queue overhead per submission, {workers} worker(s): handoff {(q['handoff'] - i['handoff']) * 1000:+.0f} ms, "
              f"POST to verdict {(q['alone'] - i['alone']) * 1000:+.0f} ms")


if __name__ == "__main__":
    main()
