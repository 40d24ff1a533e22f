"""Tracks (#29): a member's preferred track, and one daily schedule per channel.

A server's daily schedule was keyed by the guild; now by (guild, channel), so a server can
post one track in one channel and another track in another. A daily pick and a daily answer
belong to the channel the post went to: every earlier one is given its guild's channel, the
one schedule it could have come from (a pick made without a schedule keeps channel 0).

Revision ID: 0010
Revises: 0009
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None

BACKFILL = ("UPDATE {table} SET channel_id = (SELECT s.channel_id FROM daily_schedules s "
            "WHERE s.guild_id = {table}.guild_id) "
            "WHERE EXISTS (SELECT 1 FROM daily_schedules s WHERE s.guild_id = {table}.guild_id)")


def upgrade() -> None:
    with op.batch_alter_table("users") as batch_op:
        batch_op.add_column(sa.Column("preferred_track", sa.String(length=64), nullable=True))
    for table in ("daily_picks", "daily_answers"):
        with op.batch_alter_table(table) as batch_op:
            batch_op.add_column(sa.Column("channel_id", sa.BigInteger(), nullable=False, server_default="0"))
        op.execute(BACKFILL.format(table=table))
    with op.batch_alter_table("daily_picks") as batch_op:
        batch_op.drop_constraint("uq_daily_picks_guild_id_local_date", type_="unique")
        batch_op.create_unique_constraint("uq_daily_picks_guild_id_channel_id_local_date",
                                          ["guild_id", "channel_id", "local_date"])
    with op.batch_alter_table("daily_answers") as batch_op:
        batch_op.drop_constraint("uq_daily_answers_guild_id_local_date_user_id", type_="unique")
        batch_op.create_unique_constraint("uq_daily_answers_guild_id_channel_id_local_date_user_id",
                                          ["guild_id", "channel_id", "local_date", "user_id"])
    with op.batch_alter_table("daily_schedules", recreate="always") as batch_op:
        batch_op.drop_constraint("pk_daily_schedules", type_="primary")
        batch_op.create_primary_key("pk_daily_schedules", ["guild_id", "channel_id"])


def downgrade() -> None:
    # Keeps one schedule per guild (the one most recently changed) and each guild's
    # picks and answers of that channel: a server's other channels lose their posts.
    op.execute("DELETE FROM daily_schedules WHERE EXISTS (SELECT 1 FROM daily_schedules newer "
               "WHERE newer.guild_id = daily_schedules.guild_id AND (newer.updated_at > daily_schedules.updated_at "
               "OR (newer.updated_at = daily_schedules.updated_at AND newer.channel_id > daily_schedules.channel_id)))")
    for table in ("daily_answers", "daily_picks"):
        op.execute(f"DELETE FROM {table} WHERE EXISTS (SELECT 1 FROM {table} other WHERE other.guild_id = "
                   f"{table}.guild_id AND other.local_date = {table}.local_date AND other.id < {table}.id"
                   + (f" AND other.user_id = {table}.user_id" if table == "daily_answers" else "") + ")")
    with op.batch_alter_table("daily_schedules", recreate="always") as batch_op:
        batch_op.drop_constraint("pk_daily_schedules", type_="primary")
        batch_op.create_primary_key("pk_daily_schedules", ["guild_id"])
    with op.batch_alter_table("daily_answers") as batch_op:
        batch_op.drop_constraint("uq_daily_answers_guild_id_channel_id_local_date_user_id", type_="unique")
        batch_op.create_unique_constraint("uq_daily_answers_guild_id_local_date_user_id",
                                          ["guild_id", "local_date", "user_id"])
        batch_op.drop_column("channel_id")
    with op.batch_alter_table("daily_picks") as batch_op:
        batch_op.drop_constraint("uq_daily_picks_guild_id_channel_id_local_date", type_="unique")
        batch_op.create_unique_constraint("uq_daily_picks_guild_id_local_date", ["guild_id", "local_date"])
        batch_op.drop_column("channel_id")
    with op.batch_alter_table("users") as batch_op:
        batch_op.drop_column("preferred_track")
