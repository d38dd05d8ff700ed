"""Classes: teachers (server-issued credentials), their classes and the learners enrolled.

Revision ID: 0005
"""

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "teachers",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("name", sa.String(100), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_table(
        "classes",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("teacher_id", sa.String(32), sa.ForeignKey("teachers.id"), nullable=False),
        sa.Column("name", sa.String(100), nullable=False),
        sa.Column("join_code", sa.String(32), nullable=False, unique=True),
        sa.Column("exercises", sa.JSON(), nullable=False),
        sa.Column("lessons", sa.JSON(), nullable=False),
        sa.Column("deadline", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_classes_teacher_id", "classes", ["teacher_id"])
    op.create_table(
        "enrollments",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("class_id", sa.String(32), sa.ForeignKey("classes.id"), nullable=False),
        sa.Column("client_hash", sa.String(64), nullable=False),
        sa.Column("display_name", sa.String(60), nullable=False),
        sa.Column("joined_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("class_id", "client_hash", name="uq_enrollments_class_client"),
    )
    op.create_index("ix_enrollments_class_id", "enrollments", ["class_id"])
    op.create_index("ix_enrollments_client_hash", "enrollments", ["client_hash"])
    # The class dashboard's aggregate reads only this index (server/models.py says why).
    op.create_index("ix_submissions_class_board", "submissions",
                    ["client_hash", "exercise_id", "status", "verdict", "created_at", "seq"])


def downgrade() -> None:
    op.drop_index("ix_submissions_class_board", table_name="submissions")
    op.drop_table("enrollments")
    op.drop_table("classes")
    op.drop_table("teachers")
