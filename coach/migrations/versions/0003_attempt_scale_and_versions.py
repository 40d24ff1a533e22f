"""Attempts remember which grading scale, rubric and grader scored them. Rows from before
this revision were scored on the old scale (1) and keep their score.

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("attempts") as batch_op:
        batch_op.add_column(sa.Column("scale_version", sa.Integer(), nullable=False, server_default="1"))
        batch_op.add_column(sa.Column("rubric_version", sa.String(length=32), nullable=True))
        batch_op.add_column(sa.Column("grader_version", sa.String(length=64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("attempts") as batch_op:
        batch_op.drop_column("grader_version")
        batch_op.drop_column("rubric_version")
        batch_op.drop_column("scale_version")
