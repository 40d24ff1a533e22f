"""A server's daily schedule remembers its first day of the week (0 = Monday ... 6 = Sunday),
the day the weekly picture goes out with the daily post. Existing schedules start on Monday.

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("daily_schedules") as batch_op:
        batch_op.add_column(sa.Column("week_start", sa.Integer(), nullable=False, server_default="0"))


def downgrade() -> None:
    with op.batch_alter_table("daily_schedules") as batch_op:
        batch_op.drop_column("week_start")
