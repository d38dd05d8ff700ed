"""The JSON API through an in-process client: happy paths and every error."""

import json
import threading
import time

import pytest
from _support import (
    ADMIN_TOKEN,
    CORRECT,
    HIDDEN_MARKER,
    REFERENCE_MARKER,
    TEST_SECRET,
    WRONG,
    code,
    needs_sandbox,
    wait_for,
)

from server.core.config import REPO
from server.core.identity import Identities

# Tokens signed with the secret the in-process apps use (conftest's make_settings), as if
# POST /api/clients had issued them.
IDENTITIES = Identities(TEST_SECRET.encode())
TOKEN_A = {"X-Client-Token": IDENTITIES.mint()}
TOKEN_B = {"X-Client-Token": IDENTITIES.mint()}
ADMIN = {"Authorization": f"Bearer {ADMIN_TOKEN}"}


@pytest.fixture(autouse=True)
def _sandbox():
    needs_sandbox()


def submit(client, source, exercise_id="adder", headers=TOKEN_A):
    r = client.post("/api/submissions", json={"exercise_id": exercise_id, "code": source},
                    headers=headers)
    assert r.status_code == 202, r.text
    return r.json()["id"]


# -- health and exercises -----------------------------------------------------------------------


def test_health_reports_the_sandbox_and_asset_urls(client):
    body = client.get("/api/health").json()
    assert body["status"] == "ok"
    assert body["grading"] == "sandbox"
    assert "self-test passed" in body["grading_detail"]
    assert body["workers"] == 2
    assert body["frontend_built"] is False


def test_list_exercises(client):
    r = client.get("/api/exercises")
    assert r.status_code == 200
    body = r.json()
    assert body["count"] == 1
    assert body["data"][0] == {"id": "adder", "number": 1, "title": "Add (adder)",
                               "titles": {"en": "Add (adder)", "zh": "加法"},
                               "difficulty": "easy", "topics": ["testing"]}


def test_read_exercise_gives_statements_starter_and_public_tests_only(client):
    r = client.get("/api/exercises/adder")
    assert r.status_code == 200
    body = r.json()
    assert body["statement"] == {"en": "Write `add(a, b)`.\n", "zh": "写出 `add(a, b)`。\n"}
    assert body["hints"]["zh"] == "用 `+`。\n"
    assert "NotImplementedError" in body["starter"]
    assert "def test_add_small" in body["public_tests"]
    assert [c["name"] for c in body["public_cases"]] == ["test_add_small", "test_add_floats"]
    assert body["hidden_case_count"] == 2
    assert HIDDEN_MARKER not in r.text and REFERENCE_MARKER not in r.text
    assert "test_add_large" not in r.text


def test_read_exercise_by_folder_name_and_number(client):
    assert client.get("/api/exercises/01-adder").json()["id"] == "adder"
    assert client.get("/api/exercises/1").json()["id"] == "adder"


def test_unknown_exercise_is_404_naming_it(client):
    r = client.get("/api/exercises/addr")
    assert r.status_code == 404
    assert "'addr'" in r.json()["detail"]
    assert "adder" in r.json()["detail"]  # a close id is suggested


def strings(value):
    """Every str inside JSON data."""
    stack, found = [value], []
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            found.append(v)
        elif isinstance(v, dict):
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
    return "\n".join(found)


def test_real_exercises_never_show_hidden_tests_or_references(make_client):
    client = make_client(exercises_dir=REPO / "exercises")
    listing = client.get("/api/exercises").json()
    if not listing["count"]:
        pytest.skip("no exercises in the repository yet")
    for summary in listing["data"]:
        r = client.get(f"/api/exercises/{summary['id']}")
        if r.status_code == 500:
            continue  # an exercise still being written
        shown = strings(r.json())
        folder = next(p for p in (REPO / "exercises").iterdir()
                      if (p / ".meta" / "config.json").is_file()
                      and json.loads((p / ".meta" / "config.json").read_text())["id"] == summary["id"])
        public = "\n".join(p.read_text() for p in folder.rglob("*")
                           if p.is_file() and ".meta" not in p.relative_to(folder).parts)
        for path in (folder / ".meta").rglob("*.py"):
            for line in path.read_text().splitlines():
                line = line.strip()
                if len(line) > 30 and line in shown:
                    assert line in public, f"{path.name} leaks into the API: {line!r}"


# -- submissions: happy paths --------------------------------------------------------------------


def test_submit_correct_code_is_accepted(client):
    r = client.post("/api/submissions", json={"exercise_id": "adder", "code": CORRECT},
                    headers=TOKEN_A)
    assert r.status_code == 202
    assert r.json()["status"] == "queued"
    assert r.headers["location"] == f"/api/submissions/{r.json()['id']}"
    body = wait_for(client, r.json()["id"], headers=TOKEN_A)
    assert body["status"] == "done"
    assert body["verdict"] == "Accepted"
    report = body["report"]
    assert report["message"] == "all 4 tests passed"
    assert report["summary"] == {"total": 4, "passed": 4, "failed": 0, "error": 0}
    assert [(t["name"], t["hidden"]) for t in report["tests"]] == [
        ("test_add_small", False), ("test_add_floats", False)]
    assert report["hidden"] == {"total": 2, "passed": 2, "first_failed": None}
    assert body["code"] == CORRECT
    assert body["started_at"] and body["finished_at"]


def test_wrong_answer_explains_public_tests_and_hides_hidden_ones(client):
    body = wait_for(client, submit(client, WRONG), headers=TOKEN_A)
    assert body["verdict"] == "Wrong Answer"
    tests = {t["name"]: t for t in body["report"]["tests"]}
    assert tests["test_add_small"]["status"] == "failed"
    assert "returned -1" in tests["test_add_small"]["message"]
    assert "expected 3" in tests["test_add_small"]["message"]
    assert tests["test_add_small"]["duration_ms"] is not None
    # Hidden tests: a count and the first that did not pass, never a row (status) each.
    assert set(tests) == {"test_add_small", "test_add_floats"}
    assert body["report"]["hidden"] == {"total": 2, "passed": 0, "first_failed": "test_add_large"}
    assert body["report"]["summary"] == {"total": 4, "passed": 0, "failed": 4, "error": 0}
    assert body["report"]["message"].startswith("test_add_small: returned -1")


def test_failing_only_hidden_tests_names_the_hidden_test_without_details(client):
    source = code("""
        def add(a, b):
            if isinstance(a, str):
                return "nope"
            return a + b
    """)
    body = wait_for(client, submit(client, source), headers=TOKEN_A)
    assert body["verdict"] == "Wrong Answer"
    assert body["report"]["message"] == "hidden test test_add_marker did not pass"
    assert body["report"]["hidden"] == {"total": 2, "passed": 1, "first_failed": "test_add_marker"}
    assert HIDDEN_MARKER not in json.dumps(body)


def test_syntax_error_gives_line_and_column(client):
    body = wait_for(client, submit(client, "def add(a, b)\n    return a + b\n"), headers=TOKEN_A)
    assert body["verdict"] == "Syntax Error"
    assert body["report"]["syntax_error"]["line"] == 1
    assert body["report"]["message"].startswith("line 1, column")


def test_history_is_own_and_newest_first(client):
    first = submit(client, WRONG)
    second = submit(client, CORRECT)
    other = submit(client, CORRECT, headers=TOKEN_B)
    r = client.get("/api/submissions", headers=TOKEN_A)
    assert r.status_code == 200
    ids = [s["id"] for s in r.json()["data"]]
    assert ids == [second, first]
    assert r.json()["count"] == 2
    assert all(s["code"] is None and s["report"] is None for s in r.json()["data"])
    assert [s["id"] for s in client.get("/api/submissions", headers=TOKEN_B).json()["data"]] == [other]
    for sid in (first, second, other):
        wait_for(client, sid, headers=ADMIN)


def test_history_filters_by_exercise(client):
    sid = submit(client, CORRECT)
    assert [s["id"] for s in client.get("/api/submissions?exercise_id=adder", headers=TOKEN_A).json()["data"]] == [sid]
    assert client.get("/api/submissions?exercise_id=other", headers=TOKEN_A).json() == {"data": [], "count": 0}
    wait_for(client, sid, headers=TOKEN_A)


def test_another_clients_submission_is_404(client):
    sid = submit(client, CORRECT)
    r = client.get(f"/api/submissions/{sid}", headers=TOKEN_B)
    assert r.status_code == 404
    assert sid in r.json()["detail"]
    wait_for(client, sid, headers=TOKEN_A)


def test_unknown_submission_is_404(client):
    r = client.get("/api/submissions/does-not-exist", headers=TOKEN_A)
    assert r.status_code == 404
    assert "'does-not-exist'" in r.json()["detail"]


def test_a_client_token_is_issued_by_the_server_and_names_the_client(client):
    r = client.post("/api/clients")
    assert r.status_code == 201
    assert r.json()["header"] == "X-Client-Token"
    mine = {"X-Client-Token": r.json()["token"]}
    assert "set-cookie" not in r.headers  # no cookie: nothing a sibling origin could plant
    sid = submit(client, CORRECT, headers=mine)
    assert client.get(f"/api/submissions/{sid}", headers=mine).status_code == 200
    assert [s["id"] for s in client.get("/api/submissions", headers=mine).json()["data"]] == [sid]
    assert client.get(f"/api/submissions/{sid}", headers=TOKEN_A).status_code == 404
    wait_for(client, sid, headers=mine)


def test_admin_token_sees_every_client(client):
    a = submit(client, CORRECT, headers=TOKEN_A)
    b = submit(client, CORRECT, headers=TOKEN_B)
    ids = [s["id"] for s in client.get("/api/submissions", headers=ADMIN).json()["data"]]
    assert ids[:2] == [b, a]
    assert client.get(f"/api/submissions/{a}", headers=ADMIN).status_code == 200
    for sid in (a, b):
        wait_for(client, sid, headers=ADMIN)


def test_wrong_admin_token_is_401(client):
    r = client.get("/api/submissions", headers={"Authorization": "Bearer nope"})
    assert r.status_code == 401
    assert r.headers["www-authenticate"] == "Bearer"


def test_no_admin_configured_means_no_admin(make_client):
    client = make_client(admin_token="")
    r = client.get("/api/submissions", headers={"Authorization": "Bearer "})
    assert r.status_code == 401


# -- submissions: errors change nothing ---------------------------------------------------------


def count(client) -> int:
    return client.get("/api/submissions", headers=ADMIN).json()["count"]


def test_unknown_exercise_submission_is_404(client):
    r = client.post("/api/submissions", json={"exercise_id": "nope", "code": CORRECT}, headers=TOKEN_A)
    assert r.status_code == 404
    assert "'nope'" in r.json()["detail"]
    assert count(client) == 0


def test_code_over_64_kib_is_413(client):
    big = "#" * (64 * 1024) + "\n"
    r = client.post("/api/submissions", json={"exercise_id": "adder", "code": big}, headers=TOKEN_A)
    assert r.status_code == 413
    assert "65537 bytes" in r.json()["detail"]
    assert count(client) == 0


def test_code_of_exactly_64_kib_is_accepted(client):
    source = CORRECT + "#" * (64 * 1024 - len(CORRECT) - 1) + "\n"
    assert len(source.encode()) == 64 * 1024
    wait_for(client, submit(client, source), headers=TOKEN_A)


def test_huge_body_is_413_before_parsing(client):
    body = json.dumps({"exercise_id": "adder", "code": "x" * 2_000_000})
    r = client.post("/api/submissions", content=body, headers={**TOKEN_A, "Content-Type": "application/json"})
    assert r.status_code == 413
    assert count(client) == 0


@pytest.mark.parametrize("body", [
    {"exercise_id": "adder"},
    {"code": "x = 1"},
    {"exercise_id": "adder", "code": 5},
    {"exercise_id": "", "code": "x = 1"},
    {"exercise_id": "adder", "code": "x = 1", "extra": True},
    [],
])
def test_invalid_body_is_422(client, body):
    r = client.post("/api/submissions", json=body, headers=TOKEN_A)
    assert r.status_code == 422, r.text
    assert r.json()["detail"]
    assert count(client) == 0


def test_malformed_json_is_422(client):
    r = client.post("/api/submissions", content=b"{not json", headers={**TOKEN_A, "Content-Type": "application/json"})
    assert r.status_code == 422
    assert count(client) == 0


def forged_tokens():
    """Client-chosen strings, and issued tokens altered or signed with another secret."""
    issued = TOKEN_A["X-Client-Token"]
    prefix, ident, mac = issued.split(".")
    flipped = mac[:-1] + ("A" if mac[-1] != "A" else "B")
    return ["short", "x" * 129, "client-a-0123456789abcdef", "has space in it 123", "\u00fcn\u00efcode-token",
            f"{prefix}.{ident}.{flipped}", f"{prefix}.{ident[::-1]}.{mac}", issued + "x",
            Identities(b"another-server-secret-0123456789").mint()]


@pytest.mark.parametrize("token", forged_tokens())
@pytest.mark.parametrize("method, path", [("GET", "/api/submissions"),
                                          ("GET", "/api/submissions/0123456789abcdef"),
                                          ("POST", "/api/submissions")])
def test_a_token_the_server_did_not_issue_is_401(client, token, method, path):
    r = client.request(method, path, headers={"X-Client-Token": token.encode("utf-8")},
                       json={"exercise_id": "adder", "code": CORRECT} if method == "POST" else None)
    assert r.status_code == 401, r.text
    assert "not a token this server issued" in r.json()["detail"]
    assert count(client) == 0


@pytest.mark.parametrize("method, path", [("GET", "/api/submissions"),
                                          ("GET", "/api/submissions/0123456789abcdef"),
                                          ("POST", "/api/submissions")])
def test_no_token_is_401_naming_where_to_get_one(client, method, path):
    r = client.request(method, path, json={"exercise_id": "adder", "code": CORRECT} if method == "POST" else None)
    assert r.status_code == 401
    assert "POST /api/clients" in r.json()["detail"]


def test_minting_tokens_is_limited_per_address(make_client):
    client = make_client(mint_limit=3, mint_window_s=600)
    tokens = [client.post("/api/clients") for _ in range(3)]
    assert [r.status_code for r in tokens] == [201] * 3
    assert len({r.json()["token"] for r in tokens}) == 3
    r = client.post("/api/clients")
    assert r.status_code == 429
    assert 1 <= int(r.headers["retry-after"]) <= 600
    assert "at most 3" in r.json()["detail"]


def test_submissions_are_limited_per_address_across_fresh_tokens(make_client):
    """One attacker minting a fresh token per submission is held by the address limit."""
    client = make_client(rate_limit=2, rate_window_s=600, address_rate_limit=3,
                         address_rate_window_s=600, mint_limit=0)
    statuses, ids = [], []
    for _ in range(6):
        r = client.post("/api/submissions", json={"exercise_id": "adder", "code": CORRECT},
                        headers={"X-Client-Token": client.post("/api/clients").json()["token"]})
        statuses.append(r.status_code)
        if r.status_code == 202:
            ids.append(r.json()["id"])
    assert statuses == [202] * 3 + [429] * 3
    r = client.post("/api/submissions", json={"exercise_id": "adder", "code": CORRECT}, headers=TOKEN_A)
    assert "from this network" in r.json()["detail"]
    for sid in ids:
        wait_for(client, sid, headers=ADMIN)


def test_a_client_has_a_bounded_number_of_submissions_waiting(make_client):
    client = make_client(client_pending=2, grading_workers=1)
    pool = client.app.state.grading.pool
    release = threading.Event()
    real_grade = pool.grade
    pool.grade = lambda *args: (release.wait(60), real_grade(*args))[1]
    try:
        ids = [submit(client, CORRECT), submit(client, CORRECT)]
        r = client.post("/api/submissions", json={"exercise_id": "adder", "code": CORRECT}, headers=TOKEN_A)
        assert r.status_code == 429
        assert "2 submissions waiting" in r.json()["detail"]
        ids.append(submit(client, CORRECT, headers=TOKEN_B))  # another client is not held
    finally:
        release.set()
    for sid in ids:
        wait_for(client, sid, headers=ADMIN)
    wait_for(client, submit(client, CORRECT), headers=TOKEN_A)  # room again once graded


def test_rate_limit_is_429_with_retry_after(make_client):
    client = make_client(rate_limit=2, rate_window_s=600)
    ids = [submit(client, CORRECT), submit(client, CORRECT)]
    r = client.post("/api/submissions", json={"exercise_id": "adder", "code": CORRECT}, headers=TOKEN_A)
    assert r.status_code == 429
    assert 1 <= int(r.headers["retry-after"]) <= 600
    assert "at most 2" in r.json()["detail"]
    # another client is not limited by the first one's submissions
    ids.append(submit(client, CORRECT, headers=TOKEN_B))
    assert count(client) == 3
    for sid in ids:
        wait_for(client, sid, headers=ADMIN)


def test_full_queue_is_503_with_retry_after(make_client):
    client = make_client(grading_workers=1, queue_size=1)
    pool = client.app.state.grading.pool
    release = threading.Event()
    real_grade = pool.grade

    def blocking_grade(*args):
        release.wait(60)
        return real_grade(*args)

    pool.grade = blocking_grade
    try:
        running = submit(client, CORRECT)
        deadline = time.monotonic() + 30
        while pool.stats()["running"] != 1:
            assert time.monotonic() < deadline
            time.sleep(0.01)
        queued = submit(client, CORRECT)
        r = client.post("/api/submissions", json={"exercise_id": "adder", "code": CORRECT}, headers=TOKEN_B)
        assert r.status_code == 503
        assert int(r.headers["retry-after"]) >= 1
        assert "queue is full" in r.json()["detail"]
        assert count(client) == 2
        # a refused submission does not count against the client's rate limit
        key_b = IDENTITIES.verify(TOKEN_B["X-Client-Token"])
        assert client.app.state.limits.client.count(key_b) == 0
        assert client.app.state.limits.address.count("testclient") == 2
    finally:
        release.set()
    for sid in (running, queued):
        assert wait_for(client, sid, headers=ADMIN)["verdict"] == "Accepted"


def test_broken_sandbox_refuses_to_grade(make_client, tmp_path):
    client = make_client(kael_dir=tmp_path / "missing-kael")
    health = client.get("/api/health").json()
    assert health["grading"] == "unavailable"
    assert "self-test failed" in health["grading_detail"]
    r = client.post("/api/submissions", json={"exercise_id": "adder", "code": CORRECT}, headers=TOKEN_A)
    assert r.status_code == 503
    assert r.headers["retry-after"]
    assert "grading is unavailable" in r.json()["detail"]
    assert count(client) == 0
    # the rest of the API still works
    assert client.get("/api/exercises/adder").status_code == 200


def test_unknown_api_route_is_json_404(client):
    for method in ("GET", "POST", "DELETE"):
        r = client.request(method, "/api/nope/deeper")
        assert r.status_code == 404
        assert r.headers["content-type"] == "application/json"
        assert r.json()["detail"] == f"no such route: {method} /api/nope/deeper"


def test_wrong_method_on_a_known_route_is_405(client):
    assert client.delete("/api/submissions").status_code == 405
    assert client.post("/api/exercises").status_code == 405


# -- storage and start-up -------------------------------------------------------------------------


def test_database_is_sqlite_in_wal_mode_with_a_versioned_schema(client, make_settings):
    import sqlite3

    from server.db import head_revision

    sid = submit(client, CORRECT)
    path = make_settings().data_dir / "kael.db"
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert db.execute("SELECT version_num FROM alembic_version").fetchall() == [(head_revision(),)]
        # the submission was committed when the POST answered, before any grading finished
        assert db.execute("SELECT exercise_id FROM submissions WHERE id = ?", (sid,)).fetchone() == ("adder",)
    wait_for(client, sid, headers=TOKEN_A)


def test_database_url_selects_another_database(make_client, tmp_path):
    url = f"sqlite:///{tmp_path / 'elsewhere.db'}"
    client = make_client(database_url=url)
    sid = submit(client, CORRECT)
    assert (tmp_path / "elsewhere.db").exists()
    assert not (tmp_path / "data" / "kael.db").exists()
    wait_for(client, sid, headers=TOKEN_A)


def test_restart_keeps_submissions_and_schema(make_settings):
    from fastapi.testclient import TestClient

    from server.app import create_app

    settings = make_settings()
    with TestClient(create_app(settings)) as first:
        sid = submit(first, CORRECT)
        wait_for(first, sid, headers=TOKEN_A)
    with TestClient(create_app(settings)) as second:
        assert second.get(f"/api/submissions/{sid}", headers=TOKEN_A).json()["verdict"] == "Accepted"


def test_sandbox_off_is_logged_loudly(make_server):
    server = make_server(KAEL_SANDBOX="off").start()
    import httpx

    health = httpx.get(server.url + "/api/health").json()
    assert health["grading"] == "unsandboxed"
    assert "WITHOUT a sandbox" in health["grading_detail"]
    assert "SUBMITTED CODE RUNS WITHOUT A SANDBOX" in server.log_path.read_text()
