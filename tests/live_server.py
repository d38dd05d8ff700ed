"""The judge server as a real process: ``python -m server`` (uvicorn, as ``make serve``) on a free port.

One helper for everything that needs a live server (the server tests, the end-to-end tests and
the benchmarks); standard library only. Settings go in as ``KAEL_*`` environment variables;
the caller's own ``KAEL_*`` variables are not inherited.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LiveServer:
    """``LiveServer(env, log_path).start()``; ``url``, ``health``; ``stop()`` or ``kill()``."""

    def __init__(self, env: dict, log_path: Path | None = None):
        self.env = {k: str(v) for k, v in env.items()}
        self.log_path = log_path
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc = None
        self.health = None

    def start(self, timeout: float = 60.0) -> "LiveServer":
        """Start the process and wait until ``/api/health`` answers (its JSON is ``health``)."""
        env = {k: v for k, v in os.environ.items() if not k.startswith("KAEL_")}
        env.update(self.env)
        out = open(self.log_path, "ab") if self.log_path else subprocess.DEVNULL
        try:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "server", "--host", "127.0.0.1",
                 "--port", str(self.port), "--log-level", "warning"],
                cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
            )
        finally:
            if self.log_path:
                out.close()
        deadline = time.monotonic() + timeout
        while True:
            self.health = self.fetch_health()
            if self.health is not None:
                return self
            if self.proc.poll() is not None:
                raise RuntimeError(f"the server exited with {self.proc.returncode}:\n{self.log_tail()}")
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"the server did not start within {timeout} s:\n{self.log_tail()}")
            time.sleep(0.1)

    def fetch_health(self) -> dict | None:
        try:
            with urllib.request.urlopen(self.url + "/api/health", timeout=2) as r:
                return json.loads(r.read())
        except (urllib.error.URLError, OSError, ValueError):
            return None

    def log_tail(self, chars: int = 3000) -> str:
        if self.log_path is None or not Path(self.log_path).exists():
            return "(no log)"
        return Path(self.log_path).read_text(errors="replace")[-chars:]

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

    def __enter__(self) -> "LiveServer":
        return self.start() if self.proc is None else self

    def __exit__(self, *exc) -> None:
        self.stop()
