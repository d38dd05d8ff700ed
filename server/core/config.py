"""Settings from the environment: every variable is documented in README.md's server section."""

import dataclasses
import os
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


class SettingsError(ValueError):
    """An environment variable holds a value the server cannot use."""


@dataclasses.dataclass(frozen=True)
class Settings:
    data_dir: Path = REPO / ".data"
    database_url: str = ""  # empty: SQLite file kael.db under data_dir
    exercises_dir: Path = REPO / "exercises"
    web_dist: Path = REPO / "web" / "dist"
    pyodide_dir: Path = REPO / "web" / "node_modules" / "pyodide"
    wheel_dir: Path = REPO / "dist"
    kael_dir: Path = REPO / "kael"
    sandbox: bool = True  # False only by the explicit KAEL_SANDBOX=off opt-out
    sandbox_uid_base: int = 60000
    grading_workers: int = os.cpu_count() or 1
    queue_size: int = 256
    rate_limit: int = 20  # accepted submissions per client ...
    rate_window_s: float = 60.0  # ... in this many seconds; 0 submissions = no limit
    max_code_bytes: int = 64 * 1024
    output_limit_bytes: int = 1024 * 1024
    max_attempts: int = 3  # grading runs of one submission cut short by crashes before "error"
    admin_token: str = ""  # empty: no admin
    log_level: str = "INFO"

    @property
    def max_body_bytes(self) -> int:
        """A JSON body may escape each byte of code into up to six characters."""
        return 6 * self.max_code_bytes + 4096

    @property
    def sqlalchemy_url(self) -> str:
        return self.database_url or f"sqlite:///{self.data_dir / 'kael.db'}"


def _int(env, name, default, minimum=0):
    raw = env.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise SettingsError(f"{name}={raw!r}: expected an integer") from None
    if value < minimum:
        raise SettingsError(f"{name}={raw!r}: expected an integer >= {minimum}")
    return value


def _path(env, name, default):
    raw = env.get(name)
    return Path(raw).expanduser().resolve() if raw else default


def _sandbox(env):
    raw = env.get("KAEL_SANDBOX", "on").strip().lower()
    if raw in ("on", "1", "true", "yes", ""):
        return True
    if raw in ("off", "0", "false", "no"):
        return False
    raise SettingsError(f"KAEL_SANDBOX={raw!r}: expected on or off")


def _rate(env):
    raw = env.get("KAEL_RATE_LIMIT", "").strip()
    if not raw:
        return Settings.rate_limit, Settings.rate_window_s
    match = re.fullmatch(r"(\d+)\s*/\s*(\d+(?:\.\d+)?)\s*s?", raw)
    if not match:
        raise SettingsError(f"KAEL_RATE_LIMIT={raw!r}: expected N/SECONDS, for example 20/60")
    return int(match[1]), float(match[2])


def load_settings(env=None) -> Settings:
    """Read the KAEL_* variables (os.environ by default)."""
    env = os.environ if env is None else env
    data_dir = _path(env, "KAEL_DATA_DIR", Settings.data_dir)
    rate_limit, rate_window_s = _rate(env)
    return Settings(
        data_dir=data_dir,
        database_url=env.get("KAEL_DATABASE_URL", "").strip(),
        exercises_dir=_path(env, "KAEL_EXERCISES_DIR", Settings.exercises_dir),
        web_dist=_path(env, "KAEL_WEB_DIST", Settings.web_dist),
        pyodide_dir=_path(env, "KAEL_PYODIDE_DIR", Settings.pyodide_dir),
        wheel_dir=_path(env, "KAEL_WHEEL_DIR", Settings.wheel_dir),
        sandbox=_sandbox(env),
        sandbox_uid_base=_int(env, "KAEL_SANDBOX_UID_BASE", Settings.sandbox_uid_base, 1000),
        grading_workers=_int(env, "KAEL_GRADING_WORKERS", Settings.grading_workers, 1),
        queue_size=_int(env, "KAEL_QUEUE_SIZE", Settings.queue_size, 1),
        rate_limit=rate_limit,
        rate_window_s=rate_window_s,
        max_code_bytes=_int(env, "KAEL_MAX_CODE_BYTES", Settings.max_code_bytes, 1),
        output_limit_bytes=_int(env, "KAEL_OUTPUT_LIMIT_BYTES", Settings.output_limit_bytes, 4096),
        admin_token=env.get("KAEL_ADMIN_TOKEN", "").strip(),
        log_level=env.get("KAEL_LOG_LEVEL", "INFO").strip().upper() or "INFO",
    )
