"""A learner's progress on the server (server/progress.py, GET and POST /api/progress): kept per
server-issued identity and only for it, merged without losing a fact (cells and hints are
unions, ``read`` follows the newer ``read_at``), Accepted from the server's own verdicts and never
from the client's word, and every bad body a 4xx (a fuzz of bodies by Hypothesis: never a 5xx).
"""

import json
import threading
import uuid

import pytest
from _support import new_client_token
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from server import progress as store
from server.db import make_engine, make_sessionmaker, migrate
from server.models import Submission

LESSONS = {"01-first": ["walk", "saved"], "02-second": ["count"]}
FORGED = "k1." + "A" * 22 + "." + "B" * 43


@pytest.fixture(scope="module")
def lessons_root(tmp_path_factory):
    root = tmp_path_factory.mktemp("lessons")
    for lesson, cells in LESSONS.items():
        (root / lesson).mkdir()
        meta = {"title": {"en": lesson, "zh": lesson}, "summary": {"en": "", "zh": ""},
                "exercises": ["adder"], "cells": {name: {} for name in cells}}
        (root / lesson / "lesson.json").write_text(json.dumps(meta))
    (root / "03-broken").mkdir()
    (root / "03-broken" / "lesson.json").write_text("{not json")  # left out, logged
    return root


@pytest.fixture
def api(make_client, lessons_root):
    return make_client(lessons_dir=lessons_root)


def post(api, headers, body):
    return api.post("/api/progress", headers=headers, json=body)


def lesson(read=False, read_at=0, **cells):
    return {"read": read, "read_at": read_at, "cells": cells}


def test_progress_needs_a_token_this_server_issued(api):
    for method in (api.get, lambda url, **kw: api.post(url, json={}, **kw)):
        assert method("/api/progress").status_code == 401
        assert method("/api/progress", headers={"X-Client-Token": FORGED}).status_code == 401


def test_a_new_identity_has_no_progress(api):
    r = api.get("/api/progress", headers=new_client_token(api))
    assert r.status_code == 200, r.text
    assert r.json() == {"lessons": {}, "exercises": {}, "version": 0, "updated_at": None}


def test_two_copies_merge_without_losing_a_fact(api):
    me = new_client_token(api)
    first = post(api, me, {"lessons": {"01-first": lesson(True, 1000, walk="matched", saved="differs")},
                           "exercises": {"adder": {"hints": 2, "passed": True}}})
    assert first.status_code == 200, first.text
    assert first.json()["version"] == 1
    # Another browser's copy: an older unread mark, a cell matched, a differing run of a matched
    # cell, fewer hints, the public tests not passed there.
    second = post(api, me, {"lessons": {"01-first": lesson(False, 500, walk="differs", saved="matched"),
                                        "02-second": lesson()},
                            "exercises": {"adder": {"hints": 1, "passed": False}}})
    body = second.json()
    assert body["lessons"]["01-first"] == lesson(True, 1000, walk="matched", saved="matched")
    assert body["lessons"]["02-second"] == lesson()
    assert body["exercises"]["adder"] == {"hints": 2, "passed": True, "accepted": False}
    assert body["version"] == 2
    assert api.get("/api/progress", headers=me).json() == body
    # Marked unread later: the newer mark wins.
    third = post(api, me, {"lessons": {"01-first": lesson(False, 2000)}}).json()
    assert third["lessons"]["01-first"] == lesson(False, 2000, walk="matched", saved="matched")
    # The same copy again changes nothing: no new version.
    assert post(api, me, {"lessons": {"01-first": lesson(False, 2000)}}).json()["version"] == 3


def test_a_read_mark_from_past_the_servers_clock_counts_as_now(api):
    me = new_client_token(api)
    before = store.now_ms()
    kept = post(api, me, {"lessons": {"01-first": lesson(True, 2**53)}}).json()["lessons"]["01-first"]
    assert before <= kept["read_at"] <= store.now_ms()
    # So a later honest "unread" still wins over a clock set to the year 287,000.
    later = post(api, me, {"lessons": {"01-first": lesson(False, store.now_ms() + 1)}}).json()
    assert later["lessons"]["01-first"]["read"] is False


def _submit_graded(api, headers, exercise, verdict):
    key = api.app.state.identities.verify(headers["X-Client-Token"])
    with api.app.state.sessions() as session:
        session.add(Submission(id=uuid.uuid4().hex, client_hash=key, exercise_id=exercise, code="x",
                               status="done", verdict=verdict))
        session.commit()


def test_accepted_comes_from_the_servers_verdicts_not_the_clients_claim(api):
    me, other = new_client_token(api), new_client_token(api)
    claim = post(api, me, {"exercises": {"adder": {"hints": 1, "accepted": True}}}).json()
    assert claim["exercises"]["adder"] == {"hints": 1, "passed": False, "accepted": False}
    _submit_graded(api, me, "adder", "Wrong Answer")
    assert api.get("/api/progress", headers=me).json()["exercises"]["adder"]["accepted"] is False
    _submit_graded(api, other, "adder", "Accepted")  # someone else's Accepted is not mine
    assert api.get("/api/progress", headers=me).json()["exercises"]["adder"]["accepted"] is False
    assert api.get("/api/progress", headers=other).json()["exercises"] == {
        "adder": {"hints": 0, "passed": True, "accepted": True}}
    _submit_graded(api, me, "adder", "Accepted")
    assert api.get("/api/progress", headers=me).json()["exercises"]["adder"] == {
        "hints": 1, "passed": True, "accepted": True}


def test_a_learner_reads_and_writes_only_their_own_progress(api):
    me, other = new_client_token(api), new_client_token(api)
    post(api, me, {"lessons": {"01-first": lesson(True, 1, walk="matched")}})
    assert api.get("/api/progress", headers=other).json()["lessons"] == {}
    post(api, other, {"lessons": {"02-second": lesson(True, 1)}})
    assert set(api.get("/api/progress", headers=me).json()["lessons"]) == {"01-first"}
    # The admin token alone names no learner: there is no progress to read.
    admin = {"Authorization": f"Bearer {api.app.state.settings.admin_token}"}
    assert api.get("/api/progress", headers=admin).status_code == 401


BAD_BODIES = {
    "unknown lesson": {"lessons": {"09-nowhere": lesson()}},
    "a lesson whose lesson.json does not load": {"lessons": {"03-broken": lesson()}},
    "unknown cell": {"lessons": {"01-first": lesson(count="matched")}},
    "unknown exercise": {"exercises": {"nope": {"hints": 1}}},
    "exercise by folder name": {"exercises": {"01-adder": {"hints": 1}}},
    "extra top-level field": {"lessons": {}, "user": "someone-else"},
    "extra lesson field": {"lessons": {"01-first": {"read": True, "owner": "x"}}},
    "read as a string": {"lessons": {"01-first": {"read": "true"}}},
    "read_at as a float": {"lessons": {"01-first": {"read_at": 1.5}}},
    "negative read_at": {"lessons": {"01-first": {"read_at": -1}}},
    "read_at past 2**53": {"lessons": {"01-first": {"read_at": 2**53 + 1}}},
    "a cell result that is neither": {"lessons": {"01-first": {"cells": {"walk": "passed"}}}},
    "hints past the bound": {"exercises": {"adder": {"hints": store.MAX_HINTS + 1}}},
    "hints as a bool": {"exercises": {"adder": {"hints": True}}},
    "too many lessons": {"lessons": {f"{i:03d}-x": lesson() for i in range(store.MAX_LESSONS + 1)}},
    "too many cells": {"lessons": {"01-first": {"cells": {f"c{i}": "matched" for i in range(store.MAX_CELLS + 1)}}}},
    "a key that is not an id": {"lessons": {"../etc": lesson()}},
    "a lone surrogate in a key": {"exercises": {"\ud800": {"hints": 1}}},
    "a list": [],
    "a string": "progress",
    "null": None,
}


@pytest.mark.parametrize("name", sorted(BAD_BODIES))
def test_a_bad_body_is_422_and_keeps_nothing(api, name):
    me = new_client_token(api)
    body = json.dumps(BAD_BODIES[name], ensure_ascii=True)
    r = api.post("/api/progress", headers={**me, "Content-Type": "application/json"}, content=body)
    assert r.status_code == 422, r.text
    assert r.json()["detail"]
    assert api.get("/api/progress", headers=me).json()["version"] == 0


@pytest.mark.parametrize("raw", [b"{", b'{"lessons": {"01-first": }}', b"\xff\xfe", b""])
def test_malformed_json_is_422(api, raw):
    r = api.post("/api/progress", headers={**new_client_token(api), "Content-Type": "application/json"},
                 content=raw)
    assert r.status_code == 422, r.text


def test_a_body_past_the_servers_limit_is_413(make_client, lessons_root):
    api = make_client(lessons_dir=lessons_root, max_code_bytes=1024)
    padding = {f"{i:03d}-lesson-with-a-long-name-" + "x" * 60: lesson() for i in range(80)}
    r = post(api, new_client_token(api), {"lessons": padding})
    assert r.status_code == 413, r.text


def test_writes_racing_each_other_lose_nothing(tmp_path):
    """Four writers merging different cells into one learner's row at once, each in its own
    session: every cell is kept (the write that lost the race merges again)."""
    engine = make_engine(f"sqlite:///{tmp_path / 'race.db'}")
    migrate(engine)
    sessions = make_sessionmaker(engine)
    errors = []

    def writer(w: int) -> None:
        try:
            for i in range(10):
                with sessions() as session:
                    store.save(session, "k" * 64, {"lessons": {"01-first": {"read": False, "read_at": 0, "cells": {f"w{w}-{i}": "matched"}}}})
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(w,)) for w in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    with sessions() as session:
        kept = store.public(session, "k" * 64)
    assert set(kept.lessons["01-first"].cells) == {f"w{w}-{i}" for w in range(4) for i in range(10)}
    assert kept.version <= 40
    engine.dispose()


# ------------------------------------------------------------------------------ properties

cells = st.dictionaries(st.sampled_from(["walk", "saved"]), st.sampled_from(["matched", "differs"]))
lessons = st.dictionaries(st.sampled_from(["01-first", "02-second"]), st.fixed_dictionaries(
    {"read": st.booleans(), "read_at": st.integers(0, 10**6), "cells": cells}))
exercises = st.dictionaries(st.just("adder"), st.fixed_dictionaries(
    {"hints": st.integers(0, store.MAX_HINTS), "passed": st.booleans()}))
copies = st.fixed_dictionaries({"lessons": lessons, "exercises": exercises})


@settings(max_examples=300, derandomize=True, database=None)
@given(copies, copies, copies)
def test_merge_keeps_every_fact_and_does_not_depend_on_order(a, b, c):
    ab = store.merge(a, b)
    assert store.merge(ab, c) == store.merge(a, store.merge(b, c))
    assert store.merge(ab, ab) == ab
    for copy in (a, b):
        for name, entry in copy["lessons"].items():
            kept = ab["lessons"][name]
            assert kept["read_at"] >= entry["read_at"]
            for cell, result in entry["cells"].items():
                assert kept["cells"][cell] == "matched" or result == "differs"
        for name, entry in copy["exercises"].items():
            assert ab["exercises"][name]["hints"] >= entry["hints"]
            assert ab["exercises"][name]["passed"] >= entry["passed"]
    assert store.merge(b, a) == ab  # whichever copy came first


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-2**60, 2**60) | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(["lessons", "exercises", "01-first", "adder", "walk", "read", "read_at",
                         "cells", "hints", "passed", "accepted", "matched"]) | st.text(max_size=8),
        inner, max_size=4),
    max_leaves=20)


@pytest.fixture
def unlimited_api(make_client, lessons_root):
    """For the fuzz's 300 writes from one identity: no write limit (``0/60``)."""
    return make_client(lessons_dir=lessons_root, progress_rate_limit=0)


@settings(max_examples=300, derandomize=True, database=None, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(st.one_of(json_values, copies))
def test_no_body_gets_a_5xx(unlimited_api, body):
    api = unlimited_api
    r = api.post("/api/progress", headers={"X-Client-Token": _token(api)}, json=body)
    assert r.status_code in (200, 422), (r.status_code, r.text, body)
    assert r.json()["detail"] if r.status_code == 422 else r.json()["version"] >= 0


def _token(api) -> str:
    if not hasattr(api, "_fuzz_token"):
        api._fuzz_token = new_client_token(api)["X-Client-Token"]
    return api._fuzz_token


def test_writes_past_the_rate_limit_are_429_with_retry_after_and_keep_nothing(make_client, lessons_root):
    """Each write is a database transaction: one identity may make at most
    ``progress_rate_limit`` of them per window (the page pushes at most one per 0.8 s). Reads are
    not counted, and another identity is not held up."""
    api = make_client(lessons_dir=lessons_root, progress_rate_limit=3, progress_rate_window_s=600.0)
    me = new_client_token(api)
    for i in range(3):
        assert post(api, me, {"lessons": {"01-first": lesson(True, 1000 + i)}}).status_code == 200
    refused = post(api, me, {"lessons": {"02-second": lesson(True, 5000)}})
    assert refused.status_code == 429, refused.text
    assert int(refused.headers["Retry-After"]) >= 1
    assert "at most 3 every 600 s" in refused.json()["detail"]
    kept = api.get("/api/progress", headers=me)
    assert kept.status_code == 200 and "02-second" not in kept.json()["lessons"]
    other = new_client_token(api)
    assert post(api, other, {"lessons": {"02-second": lesson(True, 5000)}}).status_code == 200
