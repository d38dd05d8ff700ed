"""Helpers of the server tests: a tiny exercise, code snippets, polling, a real uvicorn server."""

import contextlib
import json
import logging
import os
import shutil
import textwrap
import time
from pathlib import Path

import pytest
from sandbox_uids import uid_base  # noqa: F401  (the servers' uids, one place for every test)

from live_server import LiveServer

# Strings that must never appear in any response: they live only in the hidden tests and the
# reference solution of the tiny exercise, and in the server's environment.
HIDDEN_MARKER = "hidden-marker-7f3a9c"
REFERENCE_MARKER = "reference-marker-51be2d"
SECRET_ENV = "secret-env-value-c0ffee1234"
ADMIN_TOKEN = "admin-token-for-tests-0123456789"
# The identity secret of the in-process apps (make_settings): tests can sign client tokens.
TEST_SECRET = "identity-secret-for-tests-0123456789"
TERMINAL = ("done", "error")

ADDER_REFERENCE = f'''\
"""{REFERENCE_MARKER}"""


def add(a, b):
    return a + b
'''

ADDER_PUBLIC_TESTS = '''\
"""Public tests of adder."""


def test_add_small(m):
    """add(1, 2)"""
    return m.add(1, 2)


test_add_small.expected = 3


def test_add_floats(m):
    """add(0.5, 0.25)"""
    return m.add(0.5, 0.25)


test_add_floats.expected = 0.75
'''

ADDER_HIDDEN_TESTS = f'''\
"""Hidden tests of adder."""

MARKER = "{HIDDEN_MARKER}"


def test_add_large(m):
    """add of two large numbers"""
    return m.add(987654321, 123456789)


def test_add_marker(m):
    """add of two strings"""
    return m.add(MARKER, "!")
'''

ADDER_STARTER = '''\
def add(a, b):
    """Return a + b."""
    raise NotImplementedError("implement add(a, b)")
'''


def write_exercise(root: Path, number: int, slug: str, *, time_limit_s=3, memory_mb=256) -> Path:
    folder = root / f"{number:02d}-{slug}"
    (folder / ".meta").mkdir(parents=True)
    (folder / ".docs").mkdir()
    config = {"id": slug, "number": number, "title": {"en": f"Add ({slug})", "zh": "加法"},
              "difficulty": "easy", "topics": ["testing"], "time_limit_s": time_limit_s,
              "memory_mb": memory_mb, "files": {"solution": "adder.py", "test": "adder_test.py"}}
    (folder / ".meta" / "config.json").write_text(json.dumps(config))
    (folder / ".meta" / "reference.py").write_text(ADDER_REFERENCE)
    (folder / ".meta" / "hidden_test.py").write_text(ADDER_HIDDEN_TESTS)
    (folder / ".docs" / "instructions.md").write_text("Write `add(a, b)`.\n")
    (folder / ".docs" / "instructions.zh.md").write_text("写出 `add(a, b)`。\n")
    (folder / ".docs" / "hints.md").write_text("Use `+`.\n")
    (folder / ".docs" / "hints.zh.md").write_text("用 `+`。\n")
    (folder / "adder.py").write_text(ADDER_STARTER)
    (folder / "adder_test.py").write_text(ADDER_PUBLIC_TESTS)
    return folder


def code(text: str) -> str:
    return textwrap.dedent(text).lstrip()


CORRECT = code("""
    def add(a, b):
        return a + b
""")
WRONG = code("""
    def add(a, b):
        if isinstance(a, str):
            return b + a
        return a - b
""")


# ------------------------------------------------------------------------------ real server


def sandbox_processes(uid_base: int, slots: int = 16) -> list[int]:
    """Pids of processes running as one of the sandbox uids from ``uid_base``."""
    uids = {str(uid_base + slot) for slot in range(slots)}
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/status") as f:
                uid = next(line for line in f if line.startswith("Uid:")).split()[1]
        except (OSError, StopIteration):
            continue
        if uid in uids:
            found.append(int(pid))
    return found


# The live server helper is shared with the end-to-end tests and the benchmarks.
Server = LiveServer


def wait_for(client, submission_id: str, timeout: float = 120.0, headers=None) -> dict:
    """Poll until the submission is done or error (the timeout only guards against a hang)."""
    deadline = time.monotonic() + timeout
    while True:
        r = client.get(f"/api/submissions/{submission_id}", headers=headers)
        assert r.status_code == 200, r.text
        body = r.json()
        if body["status"] in TERMINAL:
            return body
        assert time.monotonic() < deadline, f"submission {submission_id} still {body['status']}"
        time.sleep(0.05)


def needs_sandbox():
    if os.geteuid() != 0:
        pytest.skip("the bubblewrap sandbox needs root (setpriv to per-slot uids)")
    if shutil.which("bwrap") is None:
        pytest.fail("bwrap is missing: make setup installs Debian's bubblewrap")




def new_client_token(http, headers=None) -> dict:
    """``{"X-Client-Token": ...}`` with a token the server issues (POST /api/clients);
    ``http`` is an httpx.Client or a TestClient."""
    r = http.post("/api/clients", headers=headers)
    assert r.status_code == 201, r.text
    return {"X-Client-Token": r.json()["token"]}


@contextlib.contextmanager
def captured_log(name: str = "kael.server", level=logging.WARNING):
    """The records of logger ``name`` while the block runs, through a handler of its own (the
    server's logger does not propagate to pytest's, and its handlers drop floods)."""
    records: list[logging.LogRecord] = []
    handler = logging.Handler(level)
    handler.emit = records.append
    logger = logging.getLogger(name)
    old_level = logger.level
    logger.addHandler(handler)
    if logger.level == logging.NOTSET or logger.level > level:
        logger.setLevel(level)
    try:
        yield records
    finally:
        logger.removeHandler(handler)
        logger.setLevel(old_level)
