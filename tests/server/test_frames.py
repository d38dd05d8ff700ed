"""Issue 22.3: what the child sends back is untrusted data (harness/frames.py).

A submission can find its run's frame channel (the nonce is in the child's memory) and write
any frame it likes. Forged frames used to crash the comparison or the report ("the judge
failed"), a deep one made the decoder raise RecursionError, ``duration_ms = 10**400`` made
every later read of the submission answer 500, and ~1 MB messages were stored as they came.
Every frame is now checked against the schema before anything reads it; anything outside it
is the submission's Runtime Error.

The fuzz writes Hypothesis-generated frames (inside the schema and outside it) from a real
submission through the real sandbox's pipe, grades it with the harness and builds the public
report the server stores; it prints how many frames it sent and how many judge errors there
were (0). The issue's four forgeries then go through the real server."""

from __future__ import annotations

import base64
import json
import time
import zlib
from dataclasses import replace

import httpx
import pytest
from _support import needs_sandbox, new_client_token, uid_base, write_exercise
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness import frames
from harness.childrun import HarnessError
from harness.grade import grade
from server.core.config import load_settings
from server.grading.report import MAX_REPORT_BYTES, public_report
from server.grading.runners import make_runner_factory
from server.models import ReportPublic

CASES = ["test_add_small", "test_add_floats", "test_add_large", "test_add_marker"]
VERDICTS = {"Accepted", "Wrong Answer", "Runtime Error", "Time Limit Exceeded", "Memory Limit Exceeded"}

# The submission: find the child's channel (main's local) and write the frames raw, then exit.
FORGER = '''
import base64, json, os, sys, zlib
_up = sys._getframe()
while "channel" not in _up.f_locals:
    _up = _up.f_back
_channel = _up.f_locals["channel"]
for _raw in json.loads(zlib.decompress(base64.b64decode({frames!r}))):
    os.write(_channel.fd, _channel.prefix + _raw.encode("latin-1") + b"\\n")
os._exit(0)
'''


def forger(raw_frames: list[bytes]) -> str:
    """A submission writing ``raw_frames`` (compressed: a forged MB fits the code size limit)."""
    packed = zlib.compress(json.dumps([f.decode("latin-1") for f in raw_frames]).encode(), 9)
    return FORGER.format(frames=base64.b64encode(packed).decode())


@pytest.fixture(scope="module")
def exercise_root(tmp_path_factory):
    root = tmp_path_factory.mktemp("frames")
    write_exercise(root, 1, "adder")
    return root


@pytest.fixture(scope="module")
def runner():
    needs_sandbox()
    return make_runner_factory(replace(load_settings(), sandbox_uid_base=uid_base()))(0)


def _judged(runner, root, raw_frames):
    """The public report the server would store for a submission sending ``raw_frames``."""
    code = forger(raw_frames)
    full = grade("adder", code, runner=runner, root=root, env={}, reveal_hidden=False,
                 known_mistakes=False, trace=False)
    public = None
    if full["verdict"] not in ("Accepted", "Syntax Error"):
        public = grade("adder", code, runner=runner, root=root, env={}, public_only=True,
                       known_mistakes=False, trace=False)
    report = public_report(full, public)
    ReportPublic.model_validate(report)  # what the API answers with
    assert len(json.dumps(report, allow_nan=False)) <= MAX_REPORT_BYTES
    return full, report


# -- strategies: frames inside the schema, near it, and anything at all -----------------------------

_plain = st.recursive(
    st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats() | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20)
_name = st.sampled_from(CASES) | st.text(max_size=10)
_raised = st.fixed_dictionaries({"type": st.text(max_size=20), "message": st.text(max_size=50),
                                 "traceback": st.text(max_size=50)}) | _plain
_case = st.fixed_dictionaries(
    {"event": st.just("case"), "name": _name,
     "duration_ms": st.floats() | st.integers(-10, 10**30) | st.just(10**400) | st.text(max_size=3)},
    optional={"value": _plain, "raised": _raised, "memory": _plain, "invalid": _plain})
_event = st.sampled_from(["ready", "loaded", "load_error", "given", "case", "done", "syntax_error", "x"])
_any_frame = st.dictionaries(st.sampled_from(["event", "name", "value", "raised", "duration_ms",
                                              "message", "line", "column", "text", "memory"]),
                             _plain | _event, max_size=6)
_frame_bytes = st.one_of(
    (_case | _any_frame | st.just({"event": "loaded"}) | st.just({"event": "done"}) | _plain).map(
        lambda f: json.dumps(f, allow_nan=True).encode()),
    st.integers(1, 5000).map(lambda n: b"[" * n + b"]" * n),  # nesting past the decoder
    st.binary(max_size=40),                                    # not JSON, not UTF-8
    st.sampled_from([b'{"event":"case","name":"test_add_small","duration_ms":1' + b"0" * 400 + b',"value":3}',
                     b'{"event":"case","name":"test_add_small","duration_ms":1,"value":' + b"9" * 5000 + b"}"]),
)
_outcome = st.one_of(
    st.fixed_dictionaries({"value": st.recursive(
        st.none() | st.booleans() | st.integers(-2**63, 2**63) | st.floats() | st.text(max_size=30),
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
        max_leaves=20)}),
    st.fixed_dictionaries({"raised": st.fixed_dictionaries(
        {"type": st.text(max_size=20), "message": st.text(max_size=50), "traceback": st.text(max_size=50)})}),
    st.just({"memory": True}), st.fixed_dictionaries({"invalid": st.text(max_size=40)}))
_valid_cases = st.permutations(CASES).flatmap(lambda names: st.tuples(*[
    st.tuples(st.just(n), st.floats(0, 1e6), _outcome) for n in names]))
_valid_run = _valid_cases.map(lambda cases: [b'{"event":"loaded"}'] + [
    json.dumps({"event": "case", "name": n, "duration_ms": d, **o}, allow_nan=True).encode()
    for n, d, o in cases] + [b'{"event":"done"}'])
_run = _valid_run | st.lists(_frame_bytes, min_size=1, max_size=8).map(
    lambda fs: [b'{"event":"loaded"}'] + fs + [b'{"event":"done"}'])

SENT = {"runs": 0, "frames": 0, "judge_errors": 0, "verdicts": {}}


@settings(max_examples=120, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
@given(raw_frames=_run)
def _fuzz_once(runner, root, raw_frames):
    SENT["runs"] += 1
    SENT["frames"] += len(raw_frames)
    try:
        _, report = _judged(runner, root, raw_frames)
    except HarnessError:
        SENT["judge_errors"] += 1
        raise
    SENT["verdicts"][report["verdict"]] = SENT["verdicts"].get(report["verdict"], 0) + 1
    assert report["verdict"] in VERDICTS


def test_generated_frames_through_the_sandbox_pipe_never_make_a_judge_error(runner, exercise_root):
    _fuzz_once(runner, exercise_root)
    print(f"\nframe fuzz: {SENT['runs']} runs, {SENT['frames']} frames, "
          f"{SENT['judge_errors']} judge errors; verdicts {SENT['verdicts']}")
    assert SENT["judge_errors"] == 0 and SENT["runs"] >= 100


# -- the four forgeries, through the real server --------------------------------------------

FORGERIES = {
    "a traceback that is an integer": [
        b'{"event":"case","name":"test_add_small","duration_ms":1,"raised":'
        b'{"type":"E","message":"m","traceback":7}}'],
    "a raised without its message": [
        b'{"event":"case","name":"test_add_small","duration_ms":1,"raised":{"type":"E","traceback":""}}'],
    "nested past the decoder": [b'{"event":"case","name":"test_add_small","duration_ms":1,"value":'
                                + b"[" * 100_000 + b"]" * 100_000 + b"}"],
    "duration_ms = 10**400": [b'{"event":"case","name":"test_add_small","duration_ms":1' + b"0" * 400
                              + b',"value":3}'],
    # four ~200 kB messages (the were ~1 MB in all, under the 1 MB output cap)
    "large messages": [b'{"event":"case","name":"%s","duration_ms":1,"raised":{"type":"E","message":"%s",'
                       b'"traceback":""}}' % (name.encode(), b"x" * 200_000) for name in CASES],
}


@pytest.mark.parametrize("name", sorted(FORGERIES))
def test_a_forged_frame_is_the_submissions_runtime_error(runner, exercise_root, name):
    full, report = _judged(runner, exercise_root, [b'{"event":"loaded"}'] + FORGERIES[name] + [b'{"event":"done"}'])
    assert report["verdict"] == "Runtime Error", report
    assert "unexpected data from the program" in full["message"], full["message"]


def test_forged_frames_through_the_real_server_are_bounded_and_never_a_5xx(make_server):
    server = make_server(KAEL_CLIENT_PENDING="0", KAEL_RATE_LIMIT="0/60").start()
    with httpx.Client(base_url=server.url, timeout=60) as http:
        token = new_client_token(http)
        for name, forged in sorted(FORGERIES.items()):
            code = forger([b'{"event":"loaded"}'] + forged + [b'{"event":"done"}'])
            r = http.post("/api/submissions", headers=token, json={"exercise_id": "adder", "code": code})
            assert r.status_code == 202, (name, r.status_code, r.text[:300])
            sid, deadline = r.json()["id"], time.monotonic() + 120
            while (r := http.get(f"/api/submissions/{sid}", headers=token)).json()["status"] not in ("done", "error"):
                assert r.status_code == 200 and time.monotonic() < deadline, (name, r.status_code)
                time.sleep(0.1)
            body = r.json()
            assert r.status_code == 200 and body["status"] == "done", (name, body.get("error"))
            assert body["verdict"] == "Runtime Error" and len(r.content) < MAX_REPORT_BYTES, name


def test_a_stored_report_with_an_unanswerable_number_is_answered_bounded():
    """A report stored before the schema, with ``duration_ms = 10**400``, made every GET of its
    submission a 500; it is answered with that duration as null."""
    import datetime as dt

    from server.models import Submission
    from server.routes.submissions import to_public

    report = {"verdict": "Runtime Error", "message": "m" * 1_000_000, "tests": [
        {"name": "test_add_small", "status": "error", "hidden": False, "description": None,
         "message": "x", "duration_ms": 10**400}],
        "hidden": {"total": 0, "passed": 0, "first_failed": None},
        "summary": {"total": 1, "passed": 0, "failed": 0, "error": 1}, "output": None}
    sub = Submission(id="s", exercise_id="adder", status="done", verdict="Runtime Error", report=report,
                     code="", created_at=dt.datetime(2026, 1, 1))
    answered = json.loads(to_public(sub, full=True).model_dump_json())
    assert answered["report"]["tests"][0]["duration_ms"] is None
    assert len(answered["report"]["message"]) <= 4000
