"""A throw-away Postgres for trying and testing the scaled mode on one machine: Debian's
``postgresql`` binaries, a temporary data directory, a unix socket only (no TCP port at all),
run as an unprivileged user (``nobody`` when started by root, who may not run Postgres).

    with LocalPostgres() as pg:
        pg.url   # postgresql+psycopg://kael@/kael?host=/tmp/kael-pg-.../run
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import subprocess
import tempfile
from pathlib import Path

USER = DATABASE = "kael"
# Throw-away data: durability traded for speed, and room for API servers and workers.
SERVER_OPTIONS = {
    "listen_addresses": "''",
    "max_connections": "300",
    "fsync": "off",
    "synchronous_commit": "off",
    "full_page_writes": "off",
    "shared_buffers": "64MB",
}


class PostgresUnavailable(RuntimeError):
    """The Postgres server binaries are not installed here."""


def find_bindir() -> Path:
    """The newest ``/usr/lib/postgresql/<version>/bin`` (Debian's layout), or $KAEL_PG_BINDIR."""
    explicit = os.environ.get("KAEL_PG_BINDIR")
    candidates = [explicit] if explicit else sorted(
        glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(Path(p).parent.name), reverse=True)
    for candidate in candidates:
        if candidate and (Path(candidate) / "postgres").is_file():
            return Path(candidate)
    raise PostgresUnavailable("no Postgres server binaries (Debian: apt-get install postgresql; "
                              "make setup installs it)")


class LocalPostgres:
    """``start()``, ``url``, ``restart()``, ``stop()`` (which removes the data)."""

    def __init__(self, bindir: Path | None = None):
        self.bindir = bindir or find_bindir()
        self.root = Path(tempfile.mkdtemp(prefix="kael-pg-"))  # short: socket paths are limited
        self.data = self.root / "data"
        self.run = self.root / "run"
        self.log = self.root / "postgres.log"
        self._as_user = self._unprivileged_user()

    @property
    def url(self) -> str:
        return self.database_url(DATABASE)

    def database_url(self, name: str) -> str:
        return f"postgresql+psycopg://{USER}@/{name}?host={self.run}"

    def create_database(self, name: str) -> str:
        """A new, empty database on this server; returns its URL."""
        self._pg("createdb", "-h", str(self.run), "-U", USER, name)
        return self.database_url(name)

    @staticmethod
    def _unprivileged_user() -> list[str]:
        if os.geteuid() != 0:
            return []
        return ["runuser", "-u", "nobody", "--"]

    def _own(self, *paths: Path) -> None:
        if self._as_user:
            nobody = pwd.getpwnam("nobody")
            for path in paths:
                os.chown(path, nobody.pw_uid, nobody.pw_gid)

    def _pg(self, tool: str, *args: str, check=True) -> subprocess.CompletedProcess:
        return subprocess.run([*self._as_user, str(self.bindir / tool), *args], check=check,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=self.root)

    def start(self) -> LocalPostgres:
        self.root.chmod(0o755)
        self.run.mkdir(mode=0o755)
        self._own(self.root, self.run)
        self._pg("initdb", "-D", str(self.data), "-U", USER, "--auth=trust", "-E", "UTF8",
                 "--locale=C.UTF-8", "--no-sync")
        with open(self.data / "postgresql.conf", "a") as conf:
            conf.write(f"\nunix_socket_directories = '{self.run}'\n")
            for key, value in SERVER_OPTIONS.items():
                conf.write(f"{key} = {value}\n")
        self._ctl_start()
        self._pg("createdb", "-h", str(self.run), "-U", USER, DATABASE)
        return self

    def _ctl_start(self) -> None:
        result = self._pg("pg_ctl", "-D", str(self.data), "-l", str(self.log), "-w", "-t", "60",
                          "start", check=False)
        if result.returncode != 0:
            raise RuntimeError(f"postgres did not start:\n{result.stdout}\n{self.log_tail()}")

    def restart(self) -> None:
        """Stop (``fast``: every connection is cut) and start again on the same data."""
        self._pg("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop")
        self._ctl_start()

    def log_tail(self, chars: int = 3000) -> str:
        try:
            return self.log.read_text(errors="replace")[-chars:]
        except OSError:
            return "(no log)"

    def stop(self) -> None:
        if (self.data / "postmaster.pid").exists():
            self._pg("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop", check=False)
        shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> LocalPostgres:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
