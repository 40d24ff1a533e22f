"""Mock interviews (#28): one row per interview with its turns, one open per member.

Revision ID: 0009
Revises: 0008
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from coach.store.types import BigId, UTCDateTime

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "interviews",
        sa.Column("id", BigId, nullable=False),
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("track", sa.String(length=64), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("bite_ids", sa.JSON(), nullable=False),
        sa.Column("turns", sa.JSON(), nullable=False),
        sa.Column("asking", sa.JSON(), nullable=True),
        sa.Column("turn", sa.Integer(), nullable=False),
        sa.Column("signal", sa.String(length=16), nullable=True),
        sa.Column("xp", sa.Integer(), nullable=False),
        sa.Column("started_at", UTCDateTime(), nullable=False),
        sa.Column("updated_at", UTCDateTime(), nullable=False),
        sa.Column("finished_at", UTCDateTime(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_interviews")),
    )
    op.create_index("uq_interviews_one_open", "interviews", ["user_id"], unique=True,
                    sqlite_where=sa.text("status = 'open'"), postgresql_where=sa.text("status = 'open'"))
    op.create_index("ix_interviews_user_id_started_at", "interviews", ["user_id", "started_at"])


def downgrade() -> None:
    op.drop_index("ix_interviews_user_id_started_at", table_name="interviews")
    op.drop_index("uq_interviews_one_open", table_name="interviews")
    op.drop_table("interviews")
