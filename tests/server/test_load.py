"""Load and crashes against a real server: 200 concurrent submissions all reach a verdict; a
server killed with SIGKILL while grading loses nothing after a restart."""

import time
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest
from _support import (
    ADMIN_TOKEN,
    CORRECT,
    TERMINAL,
    WRONG,
    code,
    needs_sandbox,
    new_client_token,
    sandbox_processes,
)

ADMIN = {"Authorization": f"Bearer {ADMIN_TOKEN}"}


@pytest.fixture(autouse=True)
def _sandbox():
    needs_sandbox()


def poll_all(url: str, ids: list[str], timeout: float) -> dict:
    """{id: final body}, polling with the admin token until every one is done or error."""
    bodies = {}
    deadline = time.monotonic() + timeout
    with httpx.Client(base_url=url, headers=ADMIN, timeout=30) as client:
        while len(bodies) < len(ids):
            assert time.monotonic() < deadline, f"{len(ids) - len(bodies)} never finished"
            listing = client.get("/api/submissions", params={"limit": 500}).json()["data"]
            for row in listing:
                if row["id"] in ids and row["status"] in TERMINAL and row["id"] not in bodies:
                    bodies[row["id"]] = row
            time.sleep(0.2)
    return bodies


def test_200_concurrent_submissions_all_reach_a_verdict(make_server):
    server = make_server(KAEL_RATE_LIMIT="0/60", KAEL_ADDRESS_RATE_LIMIT="0/60", KAEL_CLIENT_PENDING=0,
                         KAEL_QUEUE_SIZE=1000).start()
    with httpx.Client(base_url=server.url, timeout=30) as client:
        tokens = [new_client_token(client)["X-Client-Token"] for _ in range(20)]
    jobs = [(tokens[i % 20], CORRECT if i % 4 else WRONG) for i in range(200)]

    def post(job):
        token, source = job
        with httpx.Client(base_url=server.url, timeout=60) as client:
            r = client.post("/api/submissions", json={"exercise_id": "adder", "code": source},
                            headers={"X-Client-Token": token})
        return r.status_code, r.json(), source

    with ThreadPoolExecutor(max_workers=50) as pool:
        responses = list(pool.map(post, jobs))
    assert [status for status, _, _ in responses] == [202] * 200
    ids = [body["id"] for _, body, _ in responses]
    assert len(set(ids)) == 200

    bodies = poll_all(server.url, ids, timeout=600)
    expected = {body["id"]: ("Accepted" if source == CORRECT else "Wrong Answer")
                for _, body, source in responses}
    assert {sid: b["verdict"] for sid, b in bodies.items()} == expected
    assert all(b["status"] == "done" for b in bodies.values())
    with httpx.Client(base_url=server.url) as client:
        assert client.get("/api/submissions", headers=ADMIN).json()["count"] == 200
        # each client sees exactly its own ten
        mine = client.get("/api/submissions", headers={"X-Client-Token": jobs[0][0]}).json()
        assert mine["count"] == 10
        health = client.get("/api/health").json()
        assert (health["queued"], health["running"]) == (0, 0)


SLOW_CORRECT = code("""
    import time
    time.sleep(0.4)

    def add(a, b):
        return a + b
""")


def test_sigkill_while_grading_loses_nothing(make_server):
    env = dict(KAEL_GRADING_WORKERS=1, KAEL_RATE_LIMIT="0/60", KAEL_CLIENT_PENDING=0)
    server = make_server(**env).start()
    client = httpx.Client(base_url=server.url, timeout=30)
    client.headers.update(new_client_token(client))
    ids = []
    for _ in range(8):
        r = client.post("/api/submissions", json={"exercise_id": "adder", "code": SLOW_CORRECT})
        assert r.status_code == 202
        ids.append(r.json()["id"])
    deadline = time.monotonic() + 60
    while True:  # kill once one is running and others still wait
        statuses = [client.get(f"/api/submissions/{sid}").json()["status"] for sid in ids]
        if "running" in statuses and "queued" in statuses:
            break
        assert time.monotonic() < deadline, statuses
        time.sleep(0.02)
    server.kill()
    client.close()
    # the sandboxes die with the server (--die-with-parent, pid namespaces)
    uid_base = int(server.env["KAEL_SANDBOX_UID_BASE"])
    deadline = time.monotonic() + 10
    while sandbox_processes(uid_base):
        assert time.monotonic() < deadline, sandbox_processes(uid_base)
        time.sleep(0.05)

    restarted = make_server(**env).start()
    bodies = poll_all(restarted.url, ids, timeout=300)
    assert [bodies[sid]["verdict"] for sid in ids] == ["Accepted"] * 8
    with httpx.Client(base_url=restarted.url) as c:
        log = restarted.log_path.read_text()
        assert "re-queued" in log
        assert c.get("/api/submissions", headers=ADMIN).json()["count"] == 8
