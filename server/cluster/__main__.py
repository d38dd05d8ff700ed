"""``python -m server.cluster`` (``make serve-cluster``): the scaled mode on one machine.

A throw-away Postgres (Debian's binaries, a temporary data directory, a unix socket only, run as
an unprivileged user), ``--workers`` grading workers and the API server (grading nothing
itself) on ``--host``/``--port``. Ctrl+C (or SIGTERM) stops the API server and the workers
(their runs in progress go back to the queue), then Postgres, and removes the data. Other ``KAEL_*`` settings pass through.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading

from server.cluster.launch import start_api, start_worker, stop_all
from server.cluster.postgres import LocalPostgres, PostgresUnavailable


def say(line: str, stream=None) -> None:
    """Print, but never let a closed terminal or pipe stop the clean-up that follows."""
    try:
        print(line, file=stream or sys.stdout, flush=True)
    except OSError:
        pass


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--workers", type=int, default=2, help="grading worker processes")
    args = parser.parse_args()
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    try:
        pg = LocalPostgres().start()
    except PostgresUnavailable as exc:
        say(f"serve-cluster: {exc}", sys.stderr)
        return 2
    env = {k: v for k, v in os.environ.items() if k.startswith("KAEL_")}
    env["KAEL_DATABASE_URL"] = pg.url
    say(f"serve-cluster: Postgres at {pg.url} (data in {pg.data}, log {pg.log})")
    processes = []
    try:
        processes += [start_worker(i, env) for i in range(args.workers)]
        api = start_api(args.host, args.port, env)
        processes.append(api)
        say(f"serve-cluster: {args.workers} workers (pids {', '.join(str(p.pid) for p in processes[:-1])}), "
            f"API server on http://{args.host}:{args.port} (pid {api.pid}); Ctrl+C stops all")
        while not stop.wait(1.0):
            if not api.alive():
                say("serve-cluster: the API server exited", sys.stderr)
                return 1
        return 0
    finally:
        say("serve-cluster: stopping")
        stop_all(processes)
        pg.stop()


if __name__ == "__main__":
    sys.exit(main())
