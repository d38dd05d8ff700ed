"""Processes of a scaled setup on one machine: grading workers (``python -m server.worker``)
and API servers (``python -m server``), each in its own session so that it can be stopped (or killed, with
its sandboxed runs) as one."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
UID_STRIDE = 64  # sandbox uids of one worker: its base + slot


class Process:
    def __init__(self, name: str, argv: list[str], env: dict, log_path: Path | None):
        self.name = name
        self.log_path = log_path
        base = {k: v for k, v in os.environ.items() if not k.startswith("KAEL_")}
        base.update({k: str(v) for k, v in env.items()})
        out = open(log_path, "ab") if log_path else None
        try:
            self.proc = subprocess.Popen(argv, cwd=REPO, env=base, stdout=out,
                                         stderr=subprocess.STDOUT if out else None,
                                         start_new_session=True)
        finally:
            if out:
                out.close()

    @property
    def pid(self) -> int:
        return self.proc.pid

    def alive(self) -> bool:
        return self.proc.poll() is None

    def kill(self) -> None:
        """SIGKILL to its whole session (its sandboxed runs too): a lost machine."""
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait()

    def stop(self, timeout: float = 20.0) -> None:
        stop_all([self], timeout)


def stop_all(processes: list, timeout: float = 20.0) -> None:
    """SIGTERM to all at once, then wait for each (SIGKILL past ``timeout``); anything with a
    ``proc`` (a ``subprocess.Popen``) and a ``kill()``."""
    for p in processes:
        if p.proc is not None and p.proc.poll() is None:
            p.proc.send_signal(signal.SIGTERM)
    for p in processes:
        if p.proc is None:
            continue
        try:
            p.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            p.kill()


def start_worker(index: int, env: dict, log_path: Path | None = None) -> Process:
    """Worker ``index`` with its own sandbox uids (``KAEL_SANDBOX_UID_BASE`` + index * 64)."""
    env = dict(env)
    base = int(env.get("KAEL_SANDBOX_UID_BASE", 60000))
    env["KAEL_SANDBOX_UID_BASE"] = str(base + UID_STRIDE * (index + 1))
    return Process(f"worker-{index}", [sys.executable, "-m", "server.worker"], env, log_path)


def start_api(host: str, port: int, env: dict, log_path: Path | None = None,
              log_level: str = "info") -> Process:
    env = {"KAEL_GRADING_WORKERS": "0", **env}
    """The API server as ``make serve`` runs it (``python -m server``), grading nothing itself."""
    return Process(f"api-{port}", [sys.executable, "-m", "server", "--host", host,
                                   "--port", str(port), "--log-level", log_level], env, log_path)
