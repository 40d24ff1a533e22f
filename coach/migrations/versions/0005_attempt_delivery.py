"""A spoken answer's delivery figures (#18), one row per voice attempt: recording and speaking
time, words, words per minute, fillers, long pauses, whether it opened with a core point. Figures
only: audio is never stored, and the transcript is an attempt's answer text like a typed one.

Revision ID: 0005
Revises: 0004
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from coach.store.types import BigId, UTCDateTime

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "deliveries",
        sa.Column("attempt_id", BigId, nullable=False),
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.Column("duration_s", sa.Float(), nullable=False),
        sa.Column("speaking_s", sa.Float(), nullable=False),
        sa.Column("words", sa.Integer(), nullable=False),
        sa.Column("wpm", sa.Float(), nullable=False),
        sa.Column("fillers", sa.Integer(), nullable=False),
        sa.Column("fillers_per_min", sa.Float(), nullable=False),
        sa.Column("long_pauses", sa.Integer(), nullable=False),
        sa.Column("longest_pause_s", sa.Float(), nullable=False),
        sa.Column("opens_with_core_point", sa.Boolean(), nullable=True),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(["attempt_id"], ["attempts.id"], name=op.f("fk_deliveries_attempt_id_attempts"),
                                ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("attempt_id", name=op.f("pk_deliveries")),
    )
    with op.batch_alter_table("deliveries") as batch_op:
        batch_op.create_index(batch_op.f("ix_deliveries_user_id"), ["user_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("deliveries") as batch_op:
        batch_op.drop_index(batch_op.f("ix_deliveries_user_id"))
    op.drop_table("deliveries")
