"""The task queue's own tables and functions (Postgres only): procrastinate's schema.sql of
the pinned version, applied once. Upgrading procrastinate means a new revision here that runs
the SQL files it ships under procrastinate/sql/migrations/ between the two versions.

Revision ID: 0003
"""

from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name != "postgresql":
        return  # SQLite: grading is in-process, there is no task queue
    from procrastinate.schema import SchemaManager

    # The raw DB-API cursor: the schema holds '%' and ':' that a SQLAlchemy text() would parse.
    with bind.connection.cursor() as cursor:
        cursor.execute(SchemaManager.get_schema())


def downgrade() -> None:
    raise NotImplementedError("the task queue's schema is not removed by a downgrade; drop the "
                              "procrastinate_* tables, types and functions by hand")
