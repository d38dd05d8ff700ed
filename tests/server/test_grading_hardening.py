"""Judge hardening through the server and the real sandbox (issues 11 and 17): untrusted code is
compiled only inside the sandbox, hostile source gets the learner's verdict (never a judge
error), and a forbidden system call is stopped and logged by the server, not shown to the
learner."""

from __future__ import annotations

import logging

import pytest
import test_api as api
from _support import needs_sandbox, wait_for


@pytest.fixture(autouse=True)
def _sandbox():
    needs_sandbox()


def test_code_nested_too_deep_to_compile_is_a_syntax_error(client):
    body = wait_for(client, api.submit(client, "x = " + "-" * 60_000 + "1\n"), headers=api.TOKEN_A)
    assert body["status"] == "done", body
    assert body["verdict"] == "Syntax Error"
    assert body["report"]["syntax_error"]["message"].startswith("SyntaxError")


def test_a_pattern_that_takes_the_compiler_long_costs_its_own_time_limit_not_the_server(client):
    """A 40 KB sequence pattern that CPython 3.11 compiles for tens of seconds: compiled in the
    sandbox, it is the submission's verdict, and the server answers meanwhile."""
    names = ", ".join(f"a{i}" for i in range(6000))
    source = f"def add(a, b):\n    match a:\n        case [{names}]:\n            return 0\n    return a + b\n"
    submission = api.submit(client, source)
    assert client.get("/api/health").status_code == 200
    body = wait_for(client, submission, headers=api.TOKEN_A, timeout=120)
    assert body["status"] == "done", body
    assert body["verdict"] in ("Accepted", "Time Limit Exceeded", "Memory Limit Exceeded", "Syntax Error")


def test_the_keyring_attack_is_stopped_and_logged_for_the_operator_only(client, caplog):
    source = (
        "import ctypes\n"
        "libc = ctypes.CDLL(None)\n"
        "libc.syscall(248, b'user', b'hidden', b'data', 4, -2)  # add_key\n"
        "def add(a, b):\n    return a + b\n"
    )
    with caplog.at_level(logging.WARNING, logger="kael.server"):
        body = wait_for(client, api.submit(client, source), headers=api.TOKEN_A)
    assert body["status"] == "done" and body["verdict"] == "Runtime Error"
    assert "system-call filter" not in str(body)
    assert any("system-call filter killed" in r.getMessage() for r in caplog.records)
