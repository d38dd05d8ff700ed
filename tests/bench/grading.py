"""Grading latency and throughput of the judge server (a benchmark: it reports, asserts nothing).

Starts ``uvicorn server.app:app`` on a free port with a fresh data directory and the real
sandbox, posts N submissions of an exercise from C concurrent clients, polls until each is
graded, and prints, for the Accepted path and for wrong submissions (which take a second,
public-only run), p50/p95 of the latency from POST to verdict and the overall throughput.

    .venv/bin/python tests/bench/grading.py                       # graph-walk, 100 submissions
    .venv/bin/python tests/bench/grading.py --exercise sum-to -n 200 -c 20 --wrong 0.5
    .venv/bin/python tests/bench/grading.py --url http://127.0.0.1:8000   # a running server
"""

import argparse
import os
import statistics
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests"))

from harness import catalog  # noqa: E402
from live_server import LiveServer  # noqa: E402


def start_server(data_dir: str, workers: int | None) -> LiveServer:
    env = dict(KAEL_DATA_DIR=data_dir, KAEL_RATE_LIMIT="0/60", KAEL_ADDRESS_RATE_LIMIT="0/60",
               KAEL_MINT_LIMIT="0/60", KAEL_CLIENT_PENDING="0", KAEL_QUEUE_SIZE="100000",
               KAEL_LOG_LEVEL="WARNING",
               # its own slot uids: a server already running here (uids 60000+) shares none
               KAEL_SANDBOX_UID_BASE="59000")
    if workers:
        env["KAEL_GRADING_WORKERS"] = str(workers)
    return LiveServer(env).start()


def client_token(url: str) -> dict:
    """A client identity the server issues (a server with KAEL_MINT_LIMIT left on may refuse
    more than its limit per address: benchmark a running server with few clients)."""
    r = httpx.post(url + "/api/clients")
    r.raise_for_status()
    return {"X-Client-Token": r.json()["token"]}


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def run(url: str, exercise, n: int, concurrency: int, wrong: float) -> None:
    right = exercise.reference_source()
    bad = exercise.starter()
    health = httpx.get(url + "/api/health").json()
    print(f"server: {health['grading_detail']}; {health['workers']} workers; cores: {os.cpu_count()}")
    # warm-up: the first submission of an exercise also runs the reference (cached afterwards)
    warm_up = client_token(url)
    warm = httpx.post(url + "/api/submissions", json={"exercise_id": exercise.id, "code": right},
                      headers=warm_up).json()["id"]
    while httpx.get(f"{url}/api/submissions/{warm}", headers=warm_up).json()["status"] not in ("done", "error"):
        time.sleep(0.05)

    every = round(1 / wrong) if wrong > 0 else 0  # every k-th submission is the failing starter
    plan = [bad if every and i % every == 0 else right for i in range(n)]
    results: list[tuple[str, float, str]] = []
    tokens = [client_token(url) for _ in range(concurrency)]
    lock = threading.Lock()

    def one(i: int) -> None:
        headers = tokens[i % concurrency]
        with httpx.Client(base_url=url, headers=headers, timeout=120) as client:
            start = time.monotonic()
            sid = client.post("/api/submissions", json={"exercise_id": exercise.id, "code": plan[i]}).json()["id"]
            while (body := client.get(f"/api/submissions/{sid}").json())["status"] not in ("done", "error"):
                time.sleep(0.1)
            with lock:
                results.append((body["verdict"] or body["status"], time.monotonic() - start,
                                "right" if plan[i] is right else "wrong"))

    start = time.monotonic()
    with ThreadPoolExecutor(max_workers=concurrency) as pool:
        list(pool.map(one, range(n)))
    elapsed = time.monotonic() - start

    print(f"exercise {exercise.id}: {n} submissions, {concurrency} concurrent clients, "
          f"{elapsed:.1f} s, throughput {n / elapsed:.1f} submissions/s")
    for kind in ("right", "wrong"):
        latencies = [t for _, t, k in results if k == kind]
        if not latencies:
            continue
        verdicts = sorted({v for v, _, k in results if k == kind})
        print(f"  {kind:5} ({len(latencies):4d}, {', '.join(verdicts)}): latency p50 "
              f"{percentile(latencies, 0.5) * 1000:7.0f} ms, p95 {percentile(latencies, 0.95) * 1000:7.0f} ms, "
              f"mean {statistics.mean(latencies) * 1000:7.0f} ms")
    # one at a time: the grading time itself, without queueing
    single = []
    alone = client_token(url)
    for _ in range(10):
        t = time.monotonic()
        sid = httpx.post(url + "/api/submissions", json={"exercise_id": exercise.id, "code": right},
                         headers=alone).json()["id"]
        while httpx.get(f"{url}/api/submissions/{sid}", headers=alone).json()["status"] not in ("done", "error"):
            time.sleep(0.01)
        single.append(time.monotonic() - t)
    print(f"  alone (10 one after another, Accepted): p50 {percentile(single, 0.5) * 1000:.0f} ms, "
          f"p95 {percentile(single, 0.95) * 1000:.0f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--exercise", default="graph-walk")
    parser.add_argument("-n", type=int, default=100, help="submissions (default 100)")
    parser.add_argument("-c", "--concurrency", type=int, default=10, help="concurrent clients")
    parser.add_argument("--wrong", type=float, default=0.25,
                        help="fraction of submissions that are the (failing) starter")
    parser.add_argument("--workers", type=int, help="KAEL_GRADING_WORKERS (default: cores)")
    parser.add_argument("--url", help="benchmark a server that is already running")
    args = parser.parse_args()
    exercise = catalog.find(args.exercise)
    if args.url:
        run(args.url, exercise, args.n, args.concurrency, args.wrong)
        return
    with tempfile.TemporaryDirectory(prefix="kael-bench-") as data:
        with start_server(data, args.workers) as server:
            run(server.url, exercise, args.n, args.concurrency, args.wrong)


if __name__ == "__main__":
    main()
