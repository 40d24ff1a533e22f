"""Judge qualifications (#30): whether a served model may grade members, per (served model,
prompt hash, rubric version), with the figures it was decided on.

Revision ID: 0008
Revises: 0007
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from coach.store.types import UTCDateTime

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "judge_qualifications",
        sa.Column("model_id", sa.String(length=200), nullable=False),
        sa.Column("prompt_hash", sa.String(length=32), nullable=False),
        sa.Column("rubric_version", sa.String(length=32), nullable=False),
        sa.Column("state", sa.String(length=16), nullable=False),
        sa.Column("result", sa.JSON(), nullable=False),
        sa.Column("measured_at", UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("model_id", "prompt_hash", "rubric_version", name=op.f("pk_judge_qualifications")),
    )


def downgrade() -> None:
    op.drop_table("judge_qualifications")
