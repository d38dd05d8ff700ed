"""Settings from the environment, and the rate limiter."""

from pathlib import Path

import pytest

from server.core.config import REPO, SettingsError, load_settings
from server.core.ratelimit import RateLimiter, retry_after


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
    ({"KAEL_GRADING_WORKERS": "0"}, "expected an integer >= 1"),
    ({"KAEL_RATE_LIMIT": "fast"}, "expected N/SECONDS"),
    ({"KAEL_SANDBOX_UID_BASE": "0"}, "KAEL_SANDBOX_UID_BASE='0': expected an integer >= 1000"),
])
def test_bad_values_are_refused_with_the_variable_named(env, words):
    with pytest.raises(SettingsError, match=words.replace("(", r"\(").replace("[", r"\[")):
        load_settings(env)


def test_rate_limiter_counts_a_sliding_window():
    now = [0.0]
    limiter = RateLimiter(2, 10, clock=lambda: now[0])
    assert limiter.check("a") == 0 and limiter.check("a") == 0
    assert limiter.check("a") == pytest.approx(10)
    assert limiter.check("b") == 0
    now[0] = 4.0
    assert limiter.check("a") == pytest.approx(6)
    now[0] = 10.0
    assert limiter.check("a") == 0
    limiter.undo("a")
    assert limiter.check("a") == 0


def test_rate_limit_of_zero_means_no_limit():
    limiter = RateLimiter(0, 60)
    assert all(limiter.check("a") == 0 for _ in range(1000))


def test_retry_after_is_whole_seconds_at_least_one():
    assert retry_after(0.001) == "1"
    assert retry_after(2.1) == "3"
