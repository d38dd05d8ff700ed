"""The submissions table, as the hand-written schema (version 1) created it.

Revision ID: 0001
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "submissions",
        sa.Column("seq", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("id", sa.String(32), nullable=False),
        sa.Column("client_hash", sa.String(64), nullable=False),
        sa.Column("exercise_id", sa.String(100), nullable=False),
        sa.Column("code", sa.Text, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("verdict", sa.String(40), nullable=True),
        sa.Column("report", sa.JSON, nullable=True),
        sa.Column("error", sa.Text, nullable=True),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index("ix_submissions_id", "submissions", ["id"], unique=True)
    op.create_index("ix_submissions_client_hash", "submissions", ["client_hash"])
    op.create_index("ix_submissions_exercise_id", "submissions", ["exercise_id"])
    op.create_index("ix_submissions_status", "submissions", ["status"])


def downgrade() -> None:
    op.drop_table("submissions")
