"""The database: engine (SQLite in WAL mode by default), versioned schema, sessions."""

import logging
from collections.abc import Callable

from sqlalchemy import Connection, Engine, create_engine, event, text
from sqlalchemy.orm import Session, sessionmaker

from server.models import Base

log = logging.getLogger("kael.server")


def _create_v1(conn: Connection) -> None:
    Base.metadata.create_all(conn, tables=[Base.metadata.tables["submissions"]])


# Each entry runs once, in order, inside one transaction with its version row. When the schema
# changes, append a step (and freeze v1 as the DDL it created, not the current models).
MIGRATIONS: list[tuple[int, str, Callable[[Connection], None]]] = [
    (1, "submissions table", _create_v1),
]


def make_engine(url: str) -> Engine:
    if url.startswith("sqlite"):
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 30})

        @event.listens_for(engine, "connect")
        def _sqlite_pragmas(dbapi_connection, _record):
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA synchronous=NORMAL")
            cursor.execute("PRAGMA busy_timeout=30000")
            cursor.close()

        return engine
    return create_engine(url, pool_pre_ping=True)


def migrate(engine: Engine) -> int:
    """Bring the schema to the newest version; returns that version."""
    with engine.begin() as conn:
        conn.execute(text(
            "CREATE TABLE IF NOT EXISTS schema_version "
            "(version INTEGER PRIMARY KEY, description VARCHAR(200) NOT NULL)"
        ))
    with engine.begin() as conn:
        done = {row[0] for row in conn.execute(text("SELECT version FROM schema_version"))}
    for version, description, step in MIGRATIONS:
        if version in done:
            continue
        with engine.begin() as conn:
            step(conn)
            conn.execute(
                text("INSERT INTO schema_version (version, description) VALUES (:v, :d)"),
                {"v": version, "d": description},
            )
        log.info("database schema: applied migration %d (%s)", version, description)
    return MIGRATIONS[-1][0]


def make_sessionmaker(engine: Engine) -> sessionmaker[Session]:
    return sessionmaker(engine, expire_on_commit=False)
