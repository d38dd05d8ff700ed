"""The database: engine (SQLite in WAL mode by default, or Postgres), the schema brought up to
date by Alembic (``server/migrations``, the same revisions for both), sessions."""

import logging
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from fastapi.responses import JSONResponse
from sqlalchemy import Connection, Engine, create_engine, event, inspect, text
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session, sessionmaker

log = logging.getLogger("kael.server")

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
# Several processes (API servers, workers) may start at once: on Postgres the upgrade runs under
# this advisory lock, so one of them migrates and the others find the schema up to date.
MIGRATION_LOCK = 0x6B61656C  # "kael"
# The first schema was written by hand (table schema_version, version 1 = the submissions
# table); revision 0001 is that same table.
LEGACY_VERSIONS = {1: "0001"}


def make_engine(url: str, **options) -> Engine:
    if url.startswith("sqlite"):
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 30}, **options)

        @event.listens_for(engine, "connect")
        def _sqlite_pragmas(dbapi_connection, _record):
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA synchronous=NORMAL")
            cursor.execute("PRAGMA busy_timeout=30000")
            cursor.close()

        return engine
    return create_engine(url, pool_pre_ping=True, **options)


def alembic_config(connection: Connection | None = None) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["connection"] = connection
    return config


def head_revision() -> str:
    return ScriptDirectory.from_config(alembic_config()).get_current_head()


def current_revision(engine: Engine) -> str | None:
    with engine.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision()


def migrate(engine: Engine) -> str:
    """``alembic upgrade head`` on this engine; returns the revision the schema is now at."""
    with engine.connect() as conn:
        postgres = conn.dialect.name == "postgresql"
        if postgres:
            conn.execute(text("SELECT pg_advisory_lock(:key)"), {"key": MIGRATION_LOCK})
            conn.commit()
        try:
            config = alembic_config(conn)
            _adopt_legacy_schema(conn, config)
            before = MigrationContext.configure(conn).get_current_revision()
            command.upgrade(config, "head")
            conn.commit()
            after = MigrationContext.configure(conn).get_current_revision()
        finally:
            if postgres:
                conn.execute(text("SELECT pg_advisory_unlock(:key)"), {"key": MIGRATION_LOCK})
                conn.commit()
    if before != after:
        log.info("database schema: upgraded from %s to %s", before or "empty", after)
    return after


def _adopt_legacy_schema(conn: Connection, config: Config) -> None:
    """A database made by the hand-written migrations gets stamped at the matching revision."""
    tables = set(inspect(conn).get_table_names())
    if "schema_version" not in tables or "alembic_version" in tables:
        return
    version = conn.execute(text("SELECT max(version) FROM schema_version")).scalar()
    revision = LEGACY_VERSIONS.get(version)
    if revision is None:
        raise RuntimeError(f"unknown hand-written schema version {version!r}")
    command.stamp(config, revision)
    conn.execute(text("DROP TABLE schema_version"))
    conn.commit()
    log.info("database schema: hand-written version %s adopted as revision %s", version, revision)


def make_sessionmaker(engine: Engine) -> sessionmaker[Session]:
    return sessionmaker(engine, expire_on_commit=False)


# A request that cannot reach the database (Postgres restarting, SQLite locked beyond its busy
# timeout) gets 503 with Retry-After, not 500: nothing is wrong with the request.
DatabaseUnavailable = OperationalError


async def database_unavailable(_request, exc: OperationalError) -> JSONResponse:
    log.warning("database unavailable: %s", str(exc).splitlines()[0][:200])
    return JSONResponse({"detail": "the database is unavailable; try again shortly"},
                        status_code=503, headers={"Retry-After": "2"})
