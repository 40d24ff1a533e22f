"""One table for short-lived state every bot process must see (#17): cool-downs, `/forget`
confirmations, answer drafts, once-a-day notices and the daily poster's claim, each with an
expiry, so a restart or a second process sees what the first one wrote.

Revision ID: 0006
Revises: 0005
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from coach.store.types import UTCDateTime

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "expiring_state",
        sa.Column("kind", sa.String(length=40), nullable=False),
        sa.Column("key", sa.String(length=200), nullable=False),
        sa.Column("value", sa.JSON(), nullable=False),
        sa.Column("owner", sa.String(length=100), nullable=True),
        sa.Column("expires_at", UTCDateTime(), nullable=False),
        sa.Column("updated_at", UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("kind", "key", name=op.f("pk_expiring_state")),
    )
    with op.batch_alter_table("expiring_state") as batch_op:
        batch_op.create_index(batch_op.f("ix_expiring_state_expires_at"), ["expires_at"], unique=False)
        batch_op.create_index(batch_op.f("ix_expiring_state_owner"), ["owner"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("expiring_state") as batch_op:
        batch_op.drop_index(batch_op.f("ix_expiring_state_owner"))
        batch_op.drop_index(batch_op.f("ix_expiring_state_expires_at"))
    op.drop_table("expiring_state")
