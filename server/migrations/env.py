"""Alembic's environment: migrations always run on a connection that ``server.db.migrate`` hands
over (``config.attributes["connection"]``); there is no offline (SQL script) mode."""

from alembic import context

from server.models import Base

connection = context.config.attributes.get("connection")
if connection is None:
    raise RuntimeError("run migrations through server.db.migrate(engine), which passes a connection")

context.configure(connection=connection, target_metadata=Base.metadata,
                  render_as_batch=connection.dialect.name == "sqlite")
with context.begin_transaction():
    context.run_migrations()
