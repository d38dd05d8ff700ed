"""Judge hardening through the server and the real sandbox (issues 11 and 17): untrusted code is
compiled only inside the sandbox, hostile source gets the learner's verdict (never a judge
error), and a forbidden system call is stopped and logged by the server, not shown to the
learner."""

from __future__ import annotations


import pytest
import test_api as api
from _support import captured_log, needs_sandbox, wait_for


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


def test_the_keyring_attack_is_stopped_and_logged_for_the_operator_only(client):
    source = (
        "import ctypes\n"
        "libc = ctypes.CDLL(None)\n"
        "libc.syscall(248, b'user', b'hidden', b'data', 4, -2)  # add_key\n"
        "def add(a, b):\n    return a + b\n"
    )
    with captured_log() as records:
        body = wait_for(client, api.submit(client, source), headers=api.TOKEN_A)
    assert body["status"] == "done" and body["verdict"] == "Runtime Error"
    assert "system-call filter" not in str(body)
    assert any("system-call filter killed" in r.getMessage() for r in records)


def test_the_page_cache_channel_is_closed_through_the_server(client):
    """Issue 17.1's attack, both halves: evicting a page (full run) and probing residency with
    RWF_NOWAIT (public run) each stop the program; nothing gets printed."""
    for probe in ("os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)",
                  "os.preadv(fd, [bytearray(4096)], 0, os.RWF_NOWAIT)"):
        source = ("import os\nfd = os.open('/usr/bin/python3', os.O_RDONLY)\n" + probe +
                  "\nprint('BIT', 1)\ndef add(a, b):\n    return a + b\n")
        body = wait_for(client, api.submit(client, source), headers=api.TOKEN_A)
        assert body["verdict"] == "Runtime Error", body
        assert "BIT" not in (body["report"]["output"] or "")


def test_no_global_counter_is_readable_inside(client):
    """Issue 17.2: a run reads none of the machine-wide counters (there is no /proc, and
    ``sysinfo`` is refused), however often it asks."""
    source = ("import ctypes, os\nbuf = ctypes.create_string_buffer(256)\n"
              "print(os.path.exists('/proc/meminfo'), ctypes.CDLL(None).sysinfo(buf))\n"
              "def add(a, b):\n    return b\n")
    outputs = set()
    for _ in range(2):
        body = wait_for(client, api.submit(client, source), headers=api.TOKEN_A)
        assert body["verdict"] == "Wrong Answer"
        outputs.add(body["report"]["output"])
    assert outputs == {"False -1\n"}


def test_sleepers_from_one_client_do_not_hold_the_judge(make_client, tmp_path):
    """Issue 17.4: four submissions that sleep through a 30 s limit, then an honest one from
    another client. The sleepers' client holds one slot of two, so the honest submission is
    graded while three sleepers still wait."""
    from _support import write_exercise

    root = tmp_path / "exercises"
    write_exercise(root, 1, "adder", time_limit_s=30)
    client = make_client(exercises_dir=root, grading_workers=2)
    sleeper = "import time\ntime.sleep(3600)\ndef add(a, b):\n    return a + b\n"
    sleepers = [api.submit(client, sleeper) for _ in range(4)]
    honest = api.submit(client, "def add(a, b):\n    return a + b\n", headers=api.TOKEN_B)
    body = wait_for(client, honest, headers=api.TOKEN_B)
    assert body["verdict"] == "Accepted"
    statuses = [client.get(f"/api/submissions/{s}", headers=api.TOKEN_A).json()["status"] for s in sleepers]
    assert statuses.count("queued") == 3, statuses


def test_a_killed_servers_task_folders_are_private_and_removed_at_restart(make_server):
    """Issue 11.8: kill -9 while a submission with hidden tests is being graded. Its task folder
    is left behind, but readable by root and that slot's group only, and the next start-up
    removes it."""
    import glob
    import os
    import stat
    import time

    import httpx
    from _support import new_client_token

    server = make_server().start()
    http = httpx.Client(base_url=server.url)
    token = new_client_token(http)
    r = http.post("/api/submissions", headers=token, json={
        "exercise_id": "adder", "code": "import time\ntime.sleep(60)\ndef add(a, b):\n    return a + b\n"})
    assert r.status_code == 202, r.text
    pattern = f"/dev/shm/kael-sandbox-private-{server.proc.pid}-*/tasks/*"
    deadline = time.monotonic() + 60
    while not [t for t in glob.glob(pattern) if os.path.exists(os.path.join(t, "hidden_test.py"))]:
        assert time.monotonic() < deadline, "no task folder with hidden tests appeared"
        time.sleep(0.05)
    server.kill()
    left = glob.glob(f"/dev/shm/kael-sandbox-private-{server.proc.pid}-*")
    assert left
    for folder in left:
        st = os.stat(folder)
        assert stat.S_IMODE(st.st_mode) == 0o700 and st.st_uid == 0
    for task in glob.glob(pattern):
        st = os.stat(task)
        assert stat.S_IMODE(st.st_mode) == 0o750 and st.st_uid == 0 and st.st_gid != 0
    make_server().start()
    assert not any(os.path.exists(folder) for folder in left)
