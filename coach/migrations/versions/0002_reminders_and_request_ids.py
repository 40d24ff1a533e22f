"""Remember the day a reminder went out, and which request wrote an answer (so a
request retried after a dropped connection recognises its own committed write).

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("users") as batch_op:
        batch_op.add_column(sa.Column("last_reminder_on", sa.Date(), nullable=True))
    with op.batch_alter_table("quiz_answers") as batch_op:
        batch_op.add_column(sa.Column("request_id", sa.String(length=32), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("quiz_answers") as batch_op:
        batch_op.drop_column("request_id")
    with op.batch_alter_table("users") as batch_op:
        batch_op.drop_column("last_reminder_on")
