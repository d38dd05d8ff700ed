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
    lessons_dir: Path = REPO / "web" / "lessons"  # the lesson ids (and cells) progress may name
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
    address_rate_limit: int = 60  # accepted submissions per client address ...
    address_rate_window_s: float = 60.0
    mint_limit: int = 30  # client tokens issued per client address ...
    mint_window_s: float = 3600.0
    mint_global_limit: int = 600  # client tokens issued on the whole server ...
    mint_global_window_s: float = 60.0
    progress_rate_limit: int = 120  # progress writes per client ...
    progress_rate_window_s: float = 60.0  # ... in this many seconds (the page pushes one per 0.8 s at most)
    ipv4_prefix: int = 32  # per-network limits key IPv4 addresses on this prefix ...
    ipv6_prefix: int = 64  # ... and IPv6 addresses on this one (one subscriber's /64)
    client_pending: int = 4  # a client's submissions queued or running at once; 0 = no cap
    client_slots: int = 0  # grading slots one client may hold at once; 0 = half of them (at least 1)
    client_wall_s: float = 60.0  # grading wall time one client may use per minute
    secret: str = dataclasses.field(default="", repr=False)  # empty: data_dir/secret
    allowed_hosts: tuple[str, ...] = ("127.0.0.1", "localhost", "[::1]")
    trusted_proxies: tuple[str, ...] = ()  # addresses whose X-Forwarded-For is believed
    read_timeout_s: float = 15.0  # to receive a whole request (headers and body)
    keepalive_timeout_s: float = 5.0  # an idle connection between requests
    max_connections: int = 1000  # open connections in all
    connections_per_address: int = 64  # open connections from one client address
    max_code_bytes: int = 64 * 1024
    output_limit_bytes: int = 1024 * 1024
    max_attempts: int = 3  # grading runs of one submission cut short by crashes before "error"
    worker_lease_s: float = 30.0  # scaled mode: a worker silent this long is dead, its jobs re-run
    admin_token: str = ""  # empty: no admin
    log_level: str = "INFO"

    @property
    def max_body_bytes(self) -> int:
        """A JSON body may escape each byte of code into up to six characters."""
        return 6 * self.max_code_bytes + 4096

    @property
    def sqlalchemy_url(self) -> str:
        return self.database_url or f"sqlite:///{self.data_dir / 'kael.db'}"

    @property
    def scaled(self) -> bool:
        """Postgres: grading goes through the task queue (server/scaled), not the in-process pool."""
        return self.sqlalchemy_url.startswith("postgresql")


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


def _rate(env, name="KAEL_RATE_LIMIT", default=(Settings.rate_limit, Settings.rate_window_s)):
    raw = env.get(name, "").strip()
    if not raw:
        return default
    match = re.fullmatch(r"(\d+)\s*/\s*(\d+(?:\.\d+)?)\s*s?", raw)
    if not match:
        raise SettingsError(f"{name}={raw!r}: expected N/SECONDS, for example 20/60")
    return int(match[1]), float(match[2])


def _float(env, name, default, minimum=0.1):
    raw = env.get(name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        raise SettingsError(f"{name}={raw!r}: expected a number of seconds") from None
    if not value >= minimum:
        raise SettingsError(f"{name}={raw!r}: expected at least {minimum}")
    return value


def _prefix(env, name, default, low, high):
    value = _int(env, name, default, low)
    if value > high:
        raise SettingsError(f"{name}={value}: a prefix length from {low} to {high}")
    return value


def _names(env, name, default):
    raw = env.get(name)
    if raw is None or not raw.strip():
        return default
    return tuple(part.strip().lower() for part in raw.split(",") if part.strip())


def load_settings(env=None) -> Settings:
    """Read the KAEL_* variables (os.environ by default)."""
    env = os.environ if env is None else env
    data_dir = _path(env, "KAEL_DATA_DIR", Settings.data_dir)
    rate_limit, rate_window_s = _rate(env)
    address_rate = _rate(env, "KAEL_ADDRESS_RATE_LIMIT",
                         (Settings.address_rate_limit, Settings.address_rate_window_s))
    mint = _rate(env, "KAEL_MINT_LIMIT", (Settings.mint_limit, Settings.mint_window_s))
    mint_all = _rate(env, "KAEL_MINT_GLOBAL_LIMIT", (Settings.mint_global_limit, Settings.mint_global_window_s))
    progress = _rate(env, "KAEL_PROGRESS_RATE_LIMIT", (Settings.progress_rate_limit, Settings.progress_rate_window_s))
    return Settings(
        data_dir=data_dir,
        database_url=env.get("KAEL_DATABASE_URL", "").strip(),
        exercises_dir=_path(env, "KAEL_EXERCISES_DIR", Settings.exercises_dir),
        lessons_dir=_path(env, "KAEL_LESSONS_DIR", Settings.lessons_dir),
        web_dist=_path(env, "KAEL_WEB_DIST", Settings.web_dist),
        pyodide_dir=_path(env, "KAEL_PYODIDE_DIR", Settings.pyodide_dir),
        wheel_dir=_path(env, "KAEL_WHEEL_DIR", Settings.wheel_dir),
        sandbox=_sandbox(env),
        sandbox_uid_base=_int(env, "KAEL_SANDBOX_UID_BASE", Settings.sandbox_uid_base, 1000),
        grading_workers=_int(env, "KAEL_GRADING_WORKERS", Settings.grading_workers, 0),
        queue_size=_int(env, "KAEL_QUEUE_SIZE", Settings.queue_size, 1),
        rate_limit=rate_limit,
        rate_window_s=rate_window_s,
        address_rate_limit=address_rate[0],
        address_rate_window_s=address_rate[1],
        mint_limit=mint[0],
        mint_window_s=mint[1],
        mint_global_limit=mint_all[0],
        mint_global_window_s=mint_all[1],
        progress_rate_limit=progress[0],
        progress_rate_window_s=progress[1],
        ipv4_prefix=_prefix(env, "KAEL_IPV4_PREFIX", Settings.ipv4_prefix, 8, 32),
        ipv6_prefix=_prefix(env, "KAEL_IPV6_PREFIX", Settings.ipv6_prefix, 16, 128),
        client_pending=_int(env, "KAEL_CLIENT_PENDING", Settings.client_pending),
        client_slots=_int(env, "KAEL_CLIENT_SLOTS", Settings.client_slots),
        client_wall_s=_float(env, "KAEL_CLIENT_WALL_SECONDS", Settings.client_wall_s, 1.0),
        secret=env.get("KAEL_SECRET", "").strip(),
        allowed_hosts=_names(env, "KAEL_ALLOWED_HOSTS", Settings.allowed_hosts),
        trusted_proxies=_names(env, "KAEL_TRUSTED_PROXIES", Settings.trusted_proxies),
        read_timeout_s=_float(env, "KAEL_READ_TIMEOUT", Settings.read_timeout_s),
        keepalive_timeout_s=_float(env, "KAEL_KEEPALIVE_TIMEOUT", Settings.keepalive_timeout_s),
        max_connections=_int(env, "KAEL_MAX_CONNECTIONS", Settings.max_connections, 1),
        connections_per_address=_int(env, "KAEL_CONNECTIONS_PER_ADDRESS",
                                     Settings.connections_per_address, 1),
        max_code_bytes=_int(env, "KAEL_MAX_CODE_BYTES", Settings.max_code_bytes, 1),
        output_limit_bytes=_int(env, "KAEL_OUTPUT_LIMIT_BYTES", Settings.output_limit_bytes, 4096),
        worker_lease_s=float(_int(env, "KAEL_WORKER_LEASE_S", int(Settings.worker_lease_s), 3)),
        admin_token=env.get("KAEL_ADMIN_TOKEN", "").strip(),
        log_level=env.get("KAEL_LOG_LEVEL", "INFO").strip().upper() or "INFO",
    )
