"""Settings from the environment, the rate limiter, client tokens and the log guard."""

import logging
import os
import random
from pathlib import Path

import pytest

from server.core.config import REPO, Settings, SettingsError, load_settings
from server.core.identity import Identities, load_secret
from server.core.logs import FloodGuard
from server.core.ratelimit import MemoryLimiter, retry_after


def test_defaults_point_into_the_repository():
    s = load_settings({})
    assert s.data_dir == REPO / ".data"
    assert s.sqlalchemy_url == f"sqlite:///{REPO / '.data' / 'kael.db'}"
    assert s.sandbox is True
    assert (s.rate_limit, s.rate_window_s) == (20, 60.0)
    assert s.max_code_bytes == 64 * 1024
    assert s.admin_token == ""


def test_every_variable_is_read(tmp_path):
    s = load_settings({
        "KAEL_DATA_DIR": str(tmp_path), "KAEL_DATABASE_URL": "sqlite:///:memory:",
        "KAEL_SANDBOX": "off", "KAEL_SANDBOX_UID_BASE": "70000", "KAEL_GRADING_WORKERS": "3",
        "KAEL_QUEUE_SIZE": "9", "KAEL_RATE_LIMIT": "5/30", "KAEL_MAX_CODE_BYTES": "1000",
        "KAEL_OUTPUT_LIMIT_BYTES": "5000", "KAEL_ADMIN_TOKEN": " tok ", "KAEL_LOG_LEVEL": "debug",
        "KAEL_EXERCISES_DIR": str(tmp_path / "ex"), "KAEL_WEB_DIST": str(tmp_path / "d"),
        "KAEL_PYODIDE_DIR": str(tmp_path / "p"), "KAEL_WHEEL_DIR": str(tmp_path / "w"),
    })
    assert s.data_dir == tmp_path
    assert s.sqlalchemy_url == "sqlite:///:memory:"
    assert s.sandbox is False
    assert (s.sandbox_uid_base, s.grading_workers, s.queue_size) == (70000, 3, 9)
    assert (s.rate_limit, s.rate_window_s) == (5, 30.0)
    assert (s.max_code_bytes, s.output_limit_bytes) == (1000, 5000)
    assert s.admin_token == "tok"
    assert s.log_level == "DEBUG"
    assert (s.exercises_dir, s.web_dist, s.pyodide_dir, s.wheel_dir) == (
        tmp_path / "ex", tmp_path / "d", tmp_path / "p", tmp_path / "w")


def test_relative_paths_resolve_from_the_working_directory(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    assert load_settings({"KAEL_DATA_DIR": "here"}).data_dir == Path(tmp_path / "here")


@pytest.mark.parametrize("env, words", [
    ({"KAEL_SANDBOX": "maybe"}, "KAEL_SANDBOX='maybe': expected on or off"),
    ({"KAEL_GRADING_WORKERS": "two"}, "KAEL_GRADING_WORKERS='two': expected an integer"),
    ({"KAEL_GRADING_WORKERS": "-1"}, "expected an integer >= 0"),
    ({"KAEL_WORKER_LEASE_S": "1"}, "KAEL_WORKER_LEASE_S='1': expected an integer >= 3"),
    ({"KAEL_RATE_LIMIT": "fast"}, "expected N/SECONDS"),
    ({"KAEL_SANDBOX_UID_BASE": "0"}, "KAEL_SANDBOX_UID_BASE='0': expected an integer >= 1000"),
])
def test_bad_values_are_refused_with_the_variable_named(env, words):
    with pytest.raises(SettingsError, match=words.replace("(", r"\(").replace("[", r"\[")):
        load_settings(env)


def test_rate_limiter_counts_a_sliding_window():
    now = [0.0]
    limiter = MemoryLimiter(2, 10, clock=lambda: now[0])
    assert limiter.allow("a") == (True, 0) and limiter.allow("a") == (True, 0)
    ok, wait = limiter.allow("a")
    assert not ok and wait == pytest.approx(10)
    assert limiter.allow("b") == (True, 0)
    now[0] = 4.0
    ok, wait = limiter.allow("a")
    assert not ok and wait == pytest.approx(6)
    now[0] = 10.0
    assert limiter.allow("a") == (True, 0)
    assert limiter.allow("a") == (True, 0)
    assert limiter.count("a") == 2 and not limiter.allow("a")[0]
    limiter.undo("a")  # a request refused later on gives its event back
    assert limiter.count("a") == 1
    assert limiter.allow("a") == (True, 0)


def test_rate_limit_of_zero_means_no_limit():
    limiter = MemoryLimiter(0, 60)
    assert all(limiter.allow("a") == (True, 0) for _ in range(1000))


def test_limits_and_connection_settings_from_the_environment():
    s = load_settings({"KAEL_ADDRESS_RATE_LIMIT": "7/30", "KAEL_MINT_LIMIT": "3/3600",
                       "KAEL_CLIENT_PENDING": "0", "KAEL_ALLOWED_HOSTS": "judge.example.org, LOCALHOST",
                       "KAEL_TRUSTED_PROXIES": "127.0.0.1", "KAEL_READ_TIMEOUT": "2.5",
                       "KAEL_CONNECTIONS_PER_ADDRESS": "9", "KAEL_SECRET": "s" * 32})
    assert (s.address_rate_limit, s.address_rate_window_s) == (7, 30.0)
    assert (s.mint_limit, s.mint_window_s) == (3, 3600.0)
    assert s.client_pending == 0
    assert s.allowed_hosts == ("judge.example.org", "localhost")
    assert s.trusted_proxies == ("127.0.0.1",)
    assert s.read_timeout_s == 2.5 and s.connections_per_address == 9
    assert "s" * 32 not in repr(s)  # the secret never shows in a repr or a log line
    assert load_settings({}).allowed_hosts == ("127.0.0.1", "localhost", "[::1]")


@pytest.mark.parametrize("env, words", [
    ({"KAEL_MINT_LIMIT": "lots"}, "KAEL_MINT_LIMIT='lots': expected N/SECONDS"),
    ({"KAEL_READ_TIMEOUT": "soon"}, "KAEL_READ_TIMEOUT='soon': expected a number of seconds"),
    ({"KAEL_READ_TIMEOUT": "0"}, "expected at least 0.1"),
    ({"KAEL_MAX_CONNECTIONS": "0"}, "KAEL_MAX_CONNECTIONS='0': expected an integer >= 1"),
])
def test_bad_limit_values_are_refused_with_the_variable_named(env, words):
    with pytest.raises(SettingsError, match=words):
        load_settings(env)


def test_client_tokens_verify_only_when_this_secret_signed_them():
    ids = Identities(b"k" * 32)
    rng = random.Random(17)
    tokens = [ids.mint() for _ in range(50)]
    assert len({ids.verify(t) for t in tokens}) == 50  # distinct clients
    other = Identities(b"o" * 32)
    for token in tokens:
        assert ids.verify(token) is not None and other.verify(token) is None
        i = rng.randrange(3, len(token))
        altered = token[:i] + ("A" if token[i] != "A" else "B") + token[i + 1:]
        assert ids.verify(altered) is None
    assert ids.verify("client-chosen-0123456789") is None


def test_the_secret_file_is_made_once_private_and_kept(tmp_path):
    settings = Settings(data_dir=tmp_path / "data")
    first = load_secret(settings)
    assert (tmp_path / "data" / "secret").stat().st_mode & 0o777 == 0o600
    assert load_secret(settings) == first and len(first) >= 32
    assert load_secret(Settings(data_dir=tmp_path / "data", secret="x" * 20)) == b"x" * 20


def test_the_log_guard_keeps_a_few_of_each_kind_and_counts_the_rest():
    now = [0.0]
    guard = FloodGuard(burst=3, window_s=60, clock=lambda: now[0])

    def record(msg, level=logging.WARNING):
        return logging.LogRecord("uvicorn.error", level, __file__, 1, msg, None, None)

    assert [guard.filter(record("Invalid HTTP request received.")) for _ in range(10)] == [True] * 3 + [False] * 7
    assert guard.filter(record("another warning"))
    assert all(guard.filter(record("an access line", logging.INFO)) for _ in range(10))
    now[0] = 61.0
    late = record("Invalid HTTP request received.")
    assert guard.filter(late)
    assert "7 more like this" in late.getMessage()


def test_retry_after_is_whole_seconds_at_least_one():
    assert retry_after(0.001) == "1"
    assert retry_after(2.1) == "3"


@pytest.mark.parametrize("host, allowed", [
    ("127.0.0.1", None), ("::1", None), ("0.0.0.0", None), ("::", None),
    ("192.0.2.7", "127.0.0.1,localhost,[::1],192.0.2.7"),
    ("2001:db8::7", "127.0.0.1,localhost,[::1],[2001:db8::7]"),
])
def test_python_m_server_also_answers_to_the_address_it_serves(monkeypatch, host, allowed):
    from server.__main__ import _allow_the_address_served

    monkeypatch.delenv("KAEL_ALLOWED_HOSTS", raising=False)
    _allow_the_address_served(host)
    assert os.environ.get("KAEL_ALLOWED_HOSTS") == allowed
    monkeypatch.setenv("KAEL_ALLOWED_HOSTS", "judge.example.org")
    _allow_the_address_served(host)  # an explicit list is kept as it is
    assert load_settings().allowed_hosts == ("judge.example.org",)
