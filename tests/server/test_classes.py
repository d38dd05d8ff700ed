"""Classes through the API: teachers, join codes, the dashboard's grid and mistake map, exports,
deadlines, and who may read what (in-process app; the real server in test_classes_live.py)."""

import csv
import datetime as dt
import io
import json
import uuid

import pytest
from _support import ADMIN_TOKEN, TEST_SECRET, write_exercise

from server.core.identity import Identities
from server.models import Submission

IDENTITIES = Identities(TEST_SECRET.encode())
ADMIN = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
UTC = dt.timezone.utc


@pytest.fixture(scope="module")
def class_exercises(tmp_path_factory):
    root = tmp_path_factory.mktemp("class-exercises")
    write_exercise(root, 1, "adder")
    write_exercise(root, 2, "adder-two")
    return root


@pytest.fixture
def app(make_client, class_exercises):
    return make_client(exercises_dir=class_exercises)


def learner():
    return {"X-Client-Token": IDENTITIES.mint()}


def teacher(app, name="Ms Rivera"):
    r = app.post("/api/teachers", json={"name": name}, headers=ADMIN)
    assert r.status_code == 201, r.text
    body = r.json()
    assert body["token"].startswith("t1.") and body["header"] == "X-Teacher-Token"
    return {"X-Teacher-Token": body["token"]}, body["id"]


def make_class(app, as_teacher, **extra):
    body = {"name": "Autograd 101", "exercises": ["adder", "2"], **extra}
    r = app.post("/api/classes", json=body, headers=as_teacher)
    assert r.status_code == 201, r.text
    return r.json()


def join(app, code, who, name="Ada"):
    return app.post("/api/classes/join", json={"code": code, "display_name": name}, headers=who)


def key_of(who) -> str:
    return IDENTITIES.verify(who["X-Client-Token"])


def store(app, who, exercise, verdict, *, minutes=0, mistakes=(), status="done"):
    """A graded submission as the grading service leaves it, ``minutes`` after now."""
    report = {"verdict": verdict, "message": verdict, "tests": [], "summary": {
        "total": 1, "passed": int(verdict == "Accepted"), "failed": 0, "error": 0},
        "mistakes": [{"mutant": m, "message": {"en": f"{m} (en)", "zh": f"{m}（中）"}} for m in mistakes]}
    moment = dt.datetime.now(UTC) + dt.timedelta(minutes=minutes)
    with app.app.state.sessions() as session:
        session.add(Submission(id=uuid.uuid4().hex, client_hash=key_of(who), exercise_id=exercise,
                               code="def add(a, b): ...", status=status,
                               verdict=verdict if status == "done" else None,
                               report=report if status == "done" else None, created_at=moment,
                               finished_at=moment if status == "done" else None))
        session.commit()


# -- teachers ------------------------------------------------------------------------------------


def test_only_the_admin_issues_teacher_credentials(app):
    assert app.post("/api/teachers", json={"name": "x"}, headers=learner()).status_code == 401
    assert app.post("/api/teachers", json={"name": "x"}).status_code == 401
    as_teacher, _ = teacher(app)
    assert app.post("/api/teachers", json={"name": "x"}, headers=as_teacher).status_code == 401
    assert app.get("/api/teachers/me", headers=as_teacher).json()["name"] == "Ms Rivera"


def test_a_revoked_credential_is_refused_at_once(app):
    as_teacher, ident = teacher(app)
    klass = make_class(app, as_teacher)
    assert app.get(f"/api/classes/{klass['id']}", headers=as_teacher).status_code == 200
    assert app.delete(f"/api/teachers/{ident}", headers=ADMIN).status_code == 204
    for path in ("/api/classes", f"/api/classes/{klass['id']}",
                 f"/api/classes/{klass['id']}/dashboard", "/api/teachers/me"):
        assert app.get(path, headers=as_teacher).status_code == 401, path
    listed = app.get("/api/teachers", headers=ADMIN).json()["data"]
    assert [t["revoked_at"] is not None for t in listed if t["id"] == ident] == [True]
    assert app.delete("/api/teachers/nobody", headers=ADMIN).status_code == 404


@pytest.mark.parametrize("token", [
    "t1.AAAAAAAAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "nonsense", "",
    IDENTITIES.mint()])  # a learner's own token is no teacher credential
def test_a_forged_or_foreign_credential_is_401(app, token):
    assert app.get("/api/classes", headers={"X-Teacher-Token": token}).status_code == 401


# -- classes and joining -------------------------------------------------------------------------


def test_a_class_names_its_exercises_by_id_and_has_a_join_code(app):
    as_teacher, _ = teacher(app)
    klass = make_class(app, as_teacher, lessons=["graph", "graph"],
                       deadline="2030-01-01T12:00:00+02:00")
    assert klass["exercises"] == ["adder", "adder-two"]
    assert klass["lessons"] == ["graph"]
    assert klass["deadline"].startswith("2030-01-01T10:00:00")
    assert len(klass["join_code"]) == 14 and klass["join_code"].count("-") == 2
    r = app.post("/api/classes", json={"name": "x", "exercises": ["no-such"]}, headers=as_teacher)
    assert r.status_code == 422 and "no-such" in r.text


def test_join_codes_are_distinct_and_not_guessable_by_sequence(app):
    as_teacher, _ = teacher(app)
    codes = {make_class(app, as_teacher)["join_code"] for _ in range(20)}
    assert len(codes) == 20


def test_joining_forgives_case_spaces_and_lookalike_letters(app):
    as_teacher, _ = teacher(app)
    code = make_class(app, as_teacher)["join_code"]
    typed = " " + code.lower().replace("-", " ").replace("0", "o").replace("1", "l") + " "
    r = join(app, typed, learner())
    assert r.status_code == 200, r.text
    assert r.json()["exercises"] == ["adder", "adder-two"]
    assert "join_code" not in r.json() and "learners" not in r.json()


def test_a_wrong_code_is_a_bare_404(app):
    as_teacher, _ = teacher(app)
    make_class(app, as_teacher)
    answers = {join(app, code, learner()).text for code in ("ZZZZ-ZZZZ-ZZZZ", "short", "0000-0000-0000")}
    assert len(answers) == 1  # the same words whether or not the code could be one
    assert "no class has this code" in answers.pop()


def test_wrong_codes_are_limited_per_client_and_right_ones_cost_nothing(app):
    as_teacher, _ = teacher(app)
    code = make_class(app, as_teacher)["join_code"]
    guesser = learner()
    statuses = [join(app, "ZZZZ-ZZZZ-ZZZZ", guesser).status_code for _ in range(11)]
    assert statuses[:10] == [404] * 10 and statuses[10] == 429
    assert join(app, code, guesser).status_code == 429  # held up, whatever it sends now
    for _ in range(40):  # a class of 40 joining from one address: the right code is never counted
        assert join(app, code, learner()).status_code == 200


def test_wrong_codes_are_limited_per_network_across_clients(app):
    statuses = [join(app, "ZZZZ-ZZZZ-ZZZZ", learner()).status_code for _ in range(201)]
    assert statuses[:200] == [404] * 200 and statuses[200] == 429


@pytest.mark.parametrize("name", ["", "   ", "a" * 61, "Eve\u202eevil", "two\nlines", "nul\x00"])
def test_a_display_name_is_bounded_plain_text(app, name):
    as_teacher, _ = teacher(app)
    code = make_class(app, as_teacher)["join_code"]
    assert join(app, code, learner(), name=name).status_code == 422


def test_joining_again_changes_the_display_name_only(app):
    as_teacher, _ = teacher(app)
    klass = make_class(app, as_teacher)
    who = learner()
    join(app, klass["join_code"], who, name="Ada")
    join(app, klass["join_code"], who, name="Ada L.")
    rows = app.get(f"/api/classes/{klass['id']}/dashboard", headers=as_teacher).json()["learners"]
    assert [r["display_name"] for r in rows] == ["Ada L."]
    assert app.get("/api/classes/joined", headers=who).json()["count"] == 1


# -- who reads what ------------------------------------------------------------------------------


def test_a_teacher_sees_only_its_own_classes(app):
    t1, _ = teacher(app, "one")
    t2, _ = teacher(app, "two")
    klass = make_class(app, t1)
    who = learner()
    join(app, klass["join_code"], who)
    store(app, who, "adder", "Accepted")
    learner_id = app.get(f"/api/classes/{klass['id']}/dashboard", headers=t1).json()["learners"][0]["id"]
    assert [c["id"] for c in app.get("/api/classes", headers=t2).json()["data"]] == []
    for path in ("", "/dashboard", "/export.csv", "/export.json",
                 f"/learners/{learner_id}/submissions"):
        r = app.get(f"/api/classes/{klass['id']}{path}", headers=t2)
        assert r.status_code == 404 and "def add" not in r.text, path
    assert app.patch(f"/api/classes/{klass['id']}", json={"name": "mine"}, headers=t2).status_code == 404


def test_a_learner_reads_no_class_page(app):
    as_teacher, _ = teacher(app)
    klass = make_class(app, as_teacher)
    who = learner()
    join(app, klass["join_code"], who)
    for path in ("", "/dashboard", "/export.csv", "/export.json"):
        assert app.get(f"/api/classes/{klass['id']}{path}", headers=who).status_code == 401, path
    joined = app.get("/api/classes/joined", headers=who).json()["data"]
    assert joined[0]["name"] == "Autograd 101" and "id" not in joined[0]


# -- the dashboard -------------------------------------------------------------------------------


def test_the_grid_and_the_mistake_map(app):
    as_teacher, _ = teacher(app)
    klass = make_class(app, as_teacher)
    ada, ben, cy, dee = learner(), learner(), learner(), learner()
    for who, name in ((ada, "Ada"), (ben, "Ben"), (cy, "Cy"), (dee, "Dee")):
        assert join(app, klass["join_code"], who, name=name).status_code == 200
    store(app, ada, "adder", "Wrong Answer", mistakes=["swapped"])
    store(app, ada, "adder", "Accepted", minutes=1)
    store(app, ada, "adder", "Wrong Answer", minutes=2)  # after Accepted: best stays Accepted
    for minute in range(5):
        store(app, ben, "adder", "Wrong Answer", minutes=minute, mistakes=["swapped", "off_by_one"])
    store(app, cy, "adder", "Runtime Error", mistakes=["off_by_one"])
    store(app, cy, "adder", "Wrong Answer", minutes=1)  # latest matches nothing: unknown
    store(app, cy, "adder-two", "Accepted", status="queued")
    store(app, app_stranger := learner(), "adder", "Accepted")  # not in the class
    board = app.get(f"/api/classes/{klass['id']}/dashboard", headers=as_teacher).json()
    assert board["exercises"] == ["adder", "adder-two"]
    rows = {r["display_name"]: r for r in board["learners"]}
    assert list(rows) == ["Ada", "Ben", "Cy", "Dee"]
    assert rows["Ada"]["cells"]["adder"] | {"first_accepted_at": None} == {
        "best_verdict": "Accepted", "attempts": 3, "first_accepted_at": None, "late": 0, "stuck": False}
    assert rows["Ada"]["cells"]["adder"]["first_accepted_at"] is not None
    assert rows["Ben"]["cells"]["adder"]["stuck"] is True
    assert rows["Ben"]["cells"]["adder"]["best_verdict"] == "Wrong Answer"
    assert rows["Cy"]["cells"]["adder-two"] == {"best_verdict": None, "attempts": 1,
                                                "first_accepted_at": None, "late": 0, "stuck": False}
    assert rows["Dee"]["cells"]["adder"]["attempts"] == 0
    assert [r["solved"] for r in board["learners"]] == [1, 0, 0, 0]
    adder = board["mistakes"]["adder"]
    assert adder["wrong"] == 3  # Ada's latest is wrong again, Ben's, Cy's
    assert {m["mutant"]: m["learners"] for m in adder["known"]} == {"swapped": 1, "off_by_one": 1}
    assert adder["unknown"] == 2  # Ada's latest and Cy's latest matched nothing
    assert adder["known"][0]["message"]["zh"].endswith("（中）")
    assert board["mistakes"]["adder-two"] == {"wrong": 0, "known": [], "unknown": 0}
    assert app_stranger is not None


def test_submissions_after_the_deadline_are_kept_and_marked_late(app):
    as_teacher, _ = teacher(app)
    deadline = dt.datetime.now(UTC) + dt.timedelta(minutes=30)
    klass = make_class(app, as_teacher, deadline=deadline.isoformat())
    who = learner()
    join(app, klass["join_code"], who)
    store(app, who, "adder", "Wrong Answer")
    store(app, who, "adder", "Accepted", minutes=60)
    cell = app.get(f"/api/classes/{klass['id']}/dashboard", headers=as_teacher).json()[
        "learners"][0]["cells"]["adder"]
    assert (cell["attempts"], cell["late"], cell["best_verdict"]) == (2, 1, "Accepted")
    board = app.get(f"/api/classes/{klass['id']}/dashboard", headers=as_teacher).json()
    learner_id = board["learners"][0]["id"]
    subs = app.get(f"/api/classes/{klass['id']}/learners/{learner_id}/submissions",
                   headers=as_teacher).json()
    assert [(s["verdict"], s["late"]) for s in subs["data"]] == [("Accepted", True), ("Wrong Answer", False)]
    r = app.patch(f"/api/classes/{klass['id']}", json={"deadline": None}, headers=as_teacher)
    assert r.status_code == 200 and r.json()["deadline"] is None
    cell = app.get(f"/api/classes/{klass['id']}/dashboard", headers=as_teacher).json()[
        "learners"][0]["cells"]["adder"]
    assert cell["late"] == 0


def test_exports_hold_the_same_rows_as_the_grid(app):
    as_teacher, _ = teacher(app)
    klass = make_class(app, as_teacher)
    ada, eve = learner(), learner()
    join(app, klass["join_code"], ada, name="Ada")
    join(app, klass["join_code"], eve, name="=HYPERLINK(\"http://x\")")
    store(app, ada, "adder", "Accepted")
    store(app, eve, "adder-two", "Wrong Answer", mistakes=["swapped"])
    board = app.get(f"/api/classes/{klass['id']}/dashboard", headers=as_teacher).json()
    r = app.get(f"/api/classes/{klass['id']}/export.csv", headers=as_teacher)
    assert r.headers["content-type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(r.text)))
    assert [row["learner_id"] for row in rows] == [row["id"] for row in board["learners"]]
    assert rows[0]["adder verdict"] == "Accepted" and rows[0]["adder attempts"] == "1"
    assert rows[1]["learner"].startswith("'=")  # a spreadsheet shows it, never runs it
    assert rows[1]["adder-two verdict"] == "Wrong Answer"
    dump = app.get(f"/api/classes/{klass['id']}/export.json", headers=as_teacher).json()
    assert {s["exercise_id"] for s in dump["submissions"]} == {"adder", "adder-two"}
    assert {s["learner_id"] for s in dump["submissions"]} == {row["id"] for row in board["learners"]}
    assert len(dump["class"]["learners"]) == 2 and json.dumps(dump)


@pytest.mark.parametrize("body", [
    {"name": "x"}, {"name": "x", "exercises": []}, {"name": "", "exercises": ["adder"]},
    {"name": "x", "exercises": ["adder"], "deadline": "tomorrow"},
    {"name": "x", "exercises": ["adder"], "extra": 1}, {"name": "x", "exercises": ["../etc"]},
    {"name": "x" * 101, "exercises": ["adder"]},
    {"name": "x", "exercises": ["adder"], "deadline": "2030-01-01T12:00:00"},  # no time zone
    {"name": "x", "exercises": ["adder"], "deadline": "9999-12-31T23:00:00-12:00"},  # past UTC's end
    {"name": "x", "exercises": ["adder"], "deadline": "0001-01-01T00:00:00+14:00"}])
def test_bad_class_bodies_are_422(app, body):
    as_teacher, _ = teacher(app)
    assert app.post("/api/classes", json=body, headers=as_teacher).status_code == 422


def test_a_teacher_reads_only_the_class_work_of_a_learner(app):
    """Submissions to the class's exercises since joining, a page at a time; never another
    exercise's code, nor what the learner did before joining (red-team finding 2)."""
    as_teacher, _ = teacher(app)
    klass = make_class(app, as_teacher, exercises=["adder"])
    who = learner()
    store(app, who, "adder", "Wrong Answer", minutes=-10)  # before joining
    join(app, klass["join_code"], who)
    store(app, who, "adder-two", "Accepted", minutes=1)  # not assigned to this class
    for minute in range(3):
        store(app, who, "adder", "Wrong Answer", minutes=2 + minute, mistakes=["swapped"])
    board = app.get(f"/api/classes/{klass['id']}/dashboard", headers=as_teacher).json()
    assert board["learners"][0]["cells"]["adder"]["attempts"] == 3
    base = f"/api/classes/{klass['id']}/learners/{board['learners'][0]['id']}/submissions"
    page = app.get(base + "?limit=2", headers=as_teacher).json()
    assert page["count"] == 3 and len(page["data"]) == 2
    assert page["data"][0]["mistakes"][0]["mutant"] == "swapped" and "code" not in page["data"][0]
    assert app.get(base + "?limit=2&offset=2", headers=as_teacher).json()["data"][0]["exercise_id"] == "adder"
    assert app.get(base + "?exercise_id=adder-two", headers=as_teacher).json() | {"learner": ""} == {
        "learner": "", "display_name": "Ada", "data": [], "count": 0}
    one = app.get(f"{base}/{page['data'][0]['id']}", headers=as_teacher).json()
    assert one["code"].startswith("def add") and one["report"]["verdict"] == "Wrong Answer"
    dump = app.get(f"/api/classes/{klass['id']}/export.json", headers=as_teacher).json()
    assert len(dump["submissions"]) == 3
    with app.app.state.sessions() as session:
        other = session.query(Submission).filter(Submission.exercise_id == "adder-two").one().id
    assert app.get(f"{base}/{other}", headers=as_teacher).status_code == 404


def test_a_report_no_response_could_encode_still_reads(app):
    """A lone surrogate in a stored report (red-team finding 3): the learner view, the one
    submission and the JSON export answer, with the character replaced or escaped."""
    as_teacher, _ = teacher(app)
    klass = make_class(app, as_teacher)
    who = learner()
    join(app, klass["join_code"], who)
    store(app, who, "adder", "Runtime Error", minutes=1, mistakes=["m\ud800"])
    with app.app.state.sessions() as session:
        sub = session.query(Submission).one()
        sub.report = {**sub.report, "message": "boom \ud800"}
        session.commit()
    board = app.get(f"/api/classes/{klass['id']}/dashboard", headers=as_teacher)
    assert board.status_code == 200
    base = f"/api/classes/{klass['id']}/learners/{board.json()['learners'][0]['id']}/submissions"
    listed = app.get(base, headers=as_teacher)
    assert listed.status_code == 200 and listed.json()["data"][0]["message"].startswith("boom")
    assert app.get(f"{base}/{listed.json()['data'][0]['id']}", headers=as_teacher).status_code == 200
    dump = app.get(f"/api/classes/{klass['id']}/export.json", headers=as_teacher)
    assert dump.status_code == 200 and dump.json()["submissions"][0]["report"]["message"].startswith("boom")
