"""Helpers of the server tests: a tiny exercise, code snippets, polling, a real uvicorn server."""

import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import httpx
import pytest

from server.core.config import REPO

# Strings that must never appear in any response: they live only in the hidden tests and the
# reference solution of the tiny exercise, and in the server's environment.
HIDDEN_MARKER = "hidden-marker-7f3a9c"
REFERENCE_MARKER = "reference-marker-51be2d"
SECRET_ENV = "secret-env-value-c0ffee1234"
ADMIN_TOKEN = "admin-token-for-tests-0123456789"
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


def random_uid_base() -> int:
    """Sandbox uids for one test server, away from the default 60000 of a running server."""
    return 61000 + 16 * random.randrange(500)


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


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """``python -m uvicorn server.app:app`` in a subprocess, with KAEL_* settings from ``env``."""

    def __init__(self, env: dict, log_path: Path):
        self.env = env
        self.log_path = log_path
        self.port = free_port()
        self.proc = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 60.0) -> "Server":
        env = {k: v for k, v in os.environ.items() if not k.startswith("KAEL_")}
        env.update(self.env)
        log = open(self.log_path, "ab")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "uvicorn", "server.app:app", "--host", "127.0.0.1",
             "--port", str(self.port), "--log-level", "warning"],
            cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        log.close()
        deadline = time.monotonic() + timeout
        while True:
            try:
                if httpx.get(self.url + "/api/health", timeout=2).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            if self.proc.poll() is not None:
                raise RuntimeError(f"the server exited: {self.log_path.read_text()[-3000:]}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"the server did not start: {self.log_path.read_text()[-3000:]}")
            time.sleep(0.1)

    def kill(self) -> None:
        """SIGKILL, no clean-up: what a crash does."""
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait()

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()




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


