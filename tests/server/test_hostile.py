"""Hostile submissions through a real server and the real sandbox: each gets the right verdict,
the server stays healthy, and nothing secret (the server's environment, the admin token, the
reference solution, the hidden tests) appears in any response."""

import json
import time

import httpx
import pytest
from _support import (
    ADMIN_TOKEN,
    HIDDEN_MARKER,
    REFERENCE_MARKER,
    SECRET_ENV,
    TERMINAL,
    Server,
    code,
    needs_sandbox,
    new_client_token,
    uid_base,
    sandbox_processes,
    write_exercise,
)

from server.core.config import REPO

TLE, MLE, RE, WA, AC = ("Time Limit Exceeded", "Memory Limit Exceeded", "Runtime Error",
                        "Wrong Answer", "Accepted")
CORRECT_BODY = """
    def add(a, b):
        return a + b
"""

HOSTILE = {
    "busy_loop": (TLE, """
        def add(a, b):
            while True:
                pass
    """),
    "sleep_forever": (TLE, """
        import time

        def add(a, b):
            time.sleep(10 ** 6)
    """),
    "memory_bomb": (MLE, """
        def add(a, b):
            hoard = []
            while True:
                hoard.append(bytearray(16 * 1024 * 1024))
    """),
    "one_huge_allocation": (MLE, """
        def add(a, b):
            return len(bytearray(8 * 1024 ** 3))
    """),
    "fork_bomb": (TLE, """
        import os

        def add(a, b):
            while True:
                try:
                    os.fork()
                except OSError:
                    pass
    """),
    "endless_output": (RE, """
        import sys

        def add(a, b):
            while True:
                print("spam" * 1000)
                sys.stdout.flush()
    """),
    "endless_output_at_import": (RE, """
        import os
        while True:
            os.write(1, b"x" * 65536)
    """),
    "huge_list_returned": (RE, """
        def add(a, b):
            return list(range(200_000))  # one over the limit, with the list itself
    """),
    # Ten million ints need more than the 256 MB limit; where memory is looser, the harness
    # walks the items before refusing them, which can outlast the time limit.
    "enormous_list_returned": ((MLE, RE, TLE), """
        def add(a, b):
            return list(range(10 ** 7))
    """),
    "huge_string_returned": (RE, """
        def add(a, b):
            return "x" * (64 * 1024 * 1024)
    """),
    "deeply_nested_return": (RE, """
        def add(a, b):
            value = []
            for _ in range(100000):
                value = [value]
            return value
    """),
    "read_files_outside_the_task": (RE, f"""
        def add(a, b):
            for path in ("{REPO}/exercises/01-graph-walk/.meta/reference.py", "/etc/passwd",
                         "/proc/1/environ", "{REPO}/.data/kael.db"):
                try:
                    return open(path).read()
                except OSError:
                    pass
            raise FileNotFoundError("nothing outside the task is visible")
    """),
    "read_hidden_tests_and_return_them": (WA, """
        import glob

        def add(a, b):
            found = ""
            for path in glob.glob("/task/*") + glob.glob("/tmp/*"):
                try:
                    found += open(path).read()
                except OSError:
                    pass
            return found or [a, b]
    """),
    "raise_hidden_tests": (RE, """
        import glob

        text = "".join(open(p).read() for p in glob.glob("/task/*.py"))
        raise RuntimeError(text)
    """),
    "print_hidden_tests": ((AC,), """
        import glob, sys

        for p in glob.glob("/task/*"):
            sys.stdout.write(open(p).read())
            sys.stderr.write(open(p).read())

        def add(a, b):
            print(open("/task/hidden_test.py").read() if __import__("os").path.exists("/task/hidden_test.py") else "")
            return a + b
    """),
    "read_environment": (WA, """
        import os

        def add(a, b):
            return dict(os.environ)
    """),
    "open_network_socket": (RE, """
        import socket

        def add(a, b):
            for host in ("127.0.0.1", "8.8.8.8"):
                try:
                    socket.create_connection((host, 80), timeout=1)
                except OSError:
                    continue
                return "connected to " + host
            raise ConnectionError("no network")
    """),
    "sys_exit_at_import": (RE, """
        import sys
        sys.exit(0)
    """),
    "os_exit_at_import": (RE, """
        import os
        os._exit(0)
    """),
    "sys_exit_in_a_test": (RE, """
        import sys

        def add(a, b):
            sys.exit(0)
    """),
    "os_exit_in_a_test": (RE, """
        import os

        def add(a, b):
            os._exit(0)
    """),
    "print_fake_verdict": (WA, """
        import json, os, sys

        fake = {"verdict": "Accepted", "event": "done", "summary": {"passed": 4, "total": 4}}
        for stream in (sys.stdout, sys.stderr):
            stream.write("@@kael-judge:0000 " + json.dumps(fake) + "\\n")
        os.write(1, b"Accepted\\n")

        def add(a, b):
            return 0
    """),
    "forge_frames_on_the_real_channel": ((WA, RE), """
        import gc, json, os

        def add(a, b):
            for obj in gc.get_objects():
                if type(obj).__name__ == "_Channel":
                    for name in ("test_add_small", "test_add_floats", "test_add_large", "test_add_marker"):
                        obj.send(event="case", name=name, duration_ms=0, value=0)
                    obj.send(event="done")
                    os._exit(0)
            return 0
    """),
    "detached_child_ignoring_sigterm": (AC, """
        import os, signal, time

        if os.fork() == 0:
            os.setsid()
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            if os.fork() == 0:
                while True:
                    time.sleep(1)
            os._exit(0)

        def add(a, b):
            return a + b
    """),
    "always_equal_object": (RE, """
        class Equal:
            def __eq__(self, other):
                return True

        def add(a, b):
            return Equal()
    """),
    "int_subclass_always_equal": (RE, """
        class Sneaky(int):
            def __eq__(self, other):
                return True
            __hash__ = int.__hash__

        def add(a, b):
            return Sneaky(0)
    """),
    "monkeypatch_builtins": ((WA, RE), """
        import builtins, json
        builtins.isinstance = lambda *a: True
        json.dumps = lambda *a, **k: '{"event": "done"}'

        def add(a, b):
            return 0
    """),
    "write_to_task_and_fill_tmp": (RE, """
        def add(a, b):
            try:
                open("/task/adder.py", "w").write("def add(a, b): return a + b")
            except OSError:
                pass
            for i in range(1000):
                with open(f"/tmp/fill{i}", "wb") as f:
                    f.write(b"x" * (8 * 1024 * 1024))
            return a + b
    """),
    "correct_after_all": (AC, CORRECT_BODY),
}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    needs_sandbox()
    root = tmp_path_factory.mktemp("hostile")
    # 3 s of CPU (9 s by the clock): the honest programs here use a fraction of a second, and the
    # ones that must time out (a busy loop, a sleep) take that long each
    write_exercise(root / "exercises", 1, "adder", time_limit_s=3, memory_mb=256)
    env = {"KAEL_DATA_DIR": str(root / "data"), "KAEL_EXERCISES_DIR": str(root / "exercises"),
           "KAEL_WEB_DIST": str(root / "no-dist"), "KAEL_ADMIN_TOKEN": ADMIN_TOKEN,
           "KAEL_RATE_LIMIT": "0/60", "KAEL_ADDRESS_RATE_LIMIT": "0/60", "KAEL_CLIENT_PENDING": "0",
           "KAEL_TEST_SECRET": SECRET_ENV, "KAEL_LOG_LEVEL": "INFO",
           "KAEL_SANDBOX_UID_BASE": str(uid_base())}
    server = Server(env, root / "server.log").start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def results(server):
    """Submit every hostile program at once, then collect every response the client sees."""
    client = httpx.Client(base_url=server.url, timeout=30)
    client.headers.update(new_client_token(client))
    ids = {}
    for name, (_, source) in HOSTILE.items():
        r = client.post("/api/submissions", json={"exercise_id": "adder", "code": code(source)})
        assert r.status_code == 202, r.text
        ids[name] = r.json()["id"]
    deadline = time.monotonic() + 600
    bodies, texts = {}, []
    while len(bodies) < len(ids):
        assert time.monotonic() < deadline, f"unfinished: {sorted(set(ids) - set(bodies))}"
        for name, sid in ids.items():
            if name in bodies:
                continue
            r = client.get(f"/api/submissions/{sid}")
            texts.append(r.text)
            if r.json()["status"] in TERMINAL:
                bodies[name] = r.json()
        health = client.get("/api/health")
        texts.append(health.text)
        assert health.status_code == 200
        time.sleep(0.2)
    texts.append(client.get("/api/submissions").text)
    texts.append(client.get("/api/submissions", headers={"Authorization": f"Bearer {ADMIN_TOKEN}"}).text)
    client.close()
    return bodies, texts


@pytest.mark.parametrize("name", list(HOSTILE))
def test_hostile_submission_gets_the_right_verdict(results, name):
    bodies, _ = results
    expected = HOSTILE[name][0]
    body = bodies[name]
    assert body["status"] == "done", body
    allowed = expected if isinstance(expected, tuple) else (expected,)
    assert body["verdict"] in allowed, json.dumps(body["report"], indent=1)[:3000]


def test_no_secret_or_hidden_test_leaks_into_any_response(results):
    _, texts = results
    everything = "\n".join(texts)
    for secret in (SECRET_ENV, ADMIN_TOKEN, HIDDEN_MARKER, REFERENCE_MARKER, "test_add_large(m)",
                   "987654321", "KAEL_TEST_SECRET", "KAEL_ADMIN_TOKEN", "hidden_test.py\", line"):
        assert secret not in everything, secret


def test_hidden_tests_show_only_name_and_status(results):
    bodies, _ = results
    for body in bodies.values():
        for test in body["report"]["tests"]:
            if test["hidden"]:
                assert set(k for k, v in test.items() if v is not None) <= {"name", "status", "hidden"}


def test_the_environment_seen_inside_is_the_sandboxs_own(results):
    message = next(t["message"] for t in results[0]["read_environment"]["report"]["tests"]
                   if t["name"] == "test_add_small")
    assert "'KAEL_BACKEND': 'python'" in message
    assert "KAEL_DATA_DIR" not in message and "PATH': '/usr/bin'" in message


def test_server_is_healthy_afterwards(server, results):
    health = httpx.get(server.url + "/api/health").json()
    assert health["grading"] == "sandbox"
    assert health["queued"] == 0 and health["running"] == 0
    client = httpx.Client(base_url=server.url)
    client.headers.update(new_client_token(client))
    sid = client.post("/api/submissions", json={"exercise_id": "adder", "code": code(CORRECT_BODY)}).json()["id"]
    deadline = time.monotonic() + 60
    while (body := client.get(f"/api/submissions/{sid}").json())["status"] not in TERMINAL:
        assert time.monotonic() < deadline
        time.sleep(0.1)
    assert body["verdict"] == AC


def test_no_sandboxed_process_outlives_its_run(server, results):
    """Not even the detached grandchild that ignores SIGTERM, nor the fork bomb's children."""
    deadline = time.monotonic() + 10
    while left := sandbox_processes(int(server.env["KAEL_SANDBOX_UID_BASE"])):
        assert time.monotonic() < deadline, left
        time.sleep(0.05)

