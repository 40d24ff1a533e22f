"""Shard leases (#17): which bot process holds which Discord shard, until when. A process
renews its leases; a standby claims the shards whose lease lapsed.

Revision ID: 0007
Revises: 0006
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from coach.store.types import UTCDateTime

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "shard_leases",
        sa.Column("shard_id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("shard_count", sa.Integer(), nullable=False),
        sa.Column("owner", sa.String(length=100), nullable=False),
        sa.Column("run_id", sa.String(length=32), nullable=False),
        sa.Column("acquired_at", UTCDateTime(), nullable=False),
        sa.Column("heartbeat", UTCDateTime(), nullable=False),
        sa.Column("expires_at", UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("shard_id", name=op.f("pk_shard_leases")),
    )


def downgrade() -> None:
    op.drop_table("shard_leases")
