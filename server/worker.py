"""One grading worker process of the scaled mode: ``python -m server.worker``.

It reads the server's settings (``KAEL_*``; ``KAEL_DATABASE_URL`` must name Postgres), brings
the schema up to date, checks the sandbox in each of its ``KAEL_GRADING_WORKERS`` slots, then
grades jobs from the task queue until SIGTERM or SIGINT (the runs in progress are killed and
their submissions queued again). It listens on no port. Run any number, on any machines that
reach the database and have the exercises, kael and the sandbox.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import sys

from server.core.config import SettingsError, load_settings
from server.db import make_engine, make_sessionmaker, migrate
from server.grading.service import check_grading
from server.scaled.worker import make_runtime, run

log = logging.getLogger("kael.server")


def main() -> int:
    try:
        settings = load_settings()
    except SettingsError as exc:
        print(f"server.worker: {exc}", file=sys.stderr)
        return 2
    logging.basicConfig(level=settings.log_level,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    if not settings.scaled:
        print("server.worker: KAEL_DATABASE_URL must name the shared Postgres database "
              "(postgresql+psycopg://...); with SQLite the API server grades in-process",
              file=sys.stderr)
        return 2
    if settings.grading_workers < 1:
        print("server.worker: KAEL_GRADING_WORKERS must be at least 1 for a worker", file=sys.stderr)
        return 2
    engine = make_engine(settings.sqlalchemy_url, pool_size=settings.grading_workers + 2)
    migrate(engine)
    if check_grading(settings) is None:
        return 3  # the sandbox does not work here: said loudly in the log
    runtime = make_runtime(settings, make_sessionmaker(engine))
    log.info("grading worker: %d slots, lease %.0f s", settings.grading_workers, settings.worker_lease_s)

    async def serve() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        await run(runtime, settings, stop)

    try:
        asyncio.run(serve())
    finally:
        engine.dispose()
    log.info("grading worker stopped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
