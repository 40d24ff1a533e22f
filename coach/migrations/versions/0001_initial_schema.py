"""Initial schema: users, quiz sessions and answers, review cards, attempts, XP,
daily rotation and reports.

Revision ID: 0001
Revises: 
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from coach.store.types import BigId, UTCDateTime

revision = '0001'
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('attempts',
    sa.Column('id', BigId, nullable=False),
    sa.Column('user_id', sa.BigInteger(), nullable=False),
    sa.Column('guild_id', sa.BigInteger(), nullable=False),
    sa.Column('bite_id', sa.String(length=100), nullable=False),
    sa.Column('score', sa.Integer(), nullable=False),
    sa.Column('grader', sa.String(length=32), nullable=False),
    sa.Column('latency_ms', sa.Integer(), nullable=False),
    sa.Column('answer_text', sa.Text(), nullable=True),
    sa.Column('attempt_key', sa.String(length=200), nullable=True),
    sa.Column('created_at', UTCDateTime(), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_attempts')),
    sa.UniqueConstraint('attempt_key', name=op.f('uq_attempts_attempt_key'))
    )
    with op.batch_alter_table('attempts', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_attempts_user_id'), ['user_id'], unique=False)

    op.create_table('cards',
    sa.Column('id', BigId, nullable=False),
    sa.Column('user_id', sa.BigInteger(), nullable=False),
    sa.Column('kind', sa.String(length=16), nullable=False),
    sa.Column('item_id', sa.String(length=100), nullable=False),
    sa.Column('card_id', sa.BigInteger(), nullable=False),
    sa.Column('card', sa.JSON(), nullable=False),
    sa.Column('due', UTCDateTime(), nullable=False),
    sa.Column('last_rating', sa.Integer(), nullable=True),
    sa.Column('reviews', sa.Integer(), nullable=False),
    sa.Column('updated_at', UTCDateTime(), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_cards')),
    sa.UniqueConstraint('user_id', 'kind', 'item_id', name=op.f('uq_cards_user_id_kind_item_id'))
    )
    with op.batch_alter_table('cards', schema=None) as batch_op:
        batch_op.create_index('ix_cards_due', ['due'], unique=False)
        batch_op.create_index('ix_cards_user_id_due', ['user_id', 'due'], unique=False)

    op.create_table('daily_answers',
    sa.Column('id', BigId, nullable=False),
    sa.Column('guild_id', sa.BigInteger(), nullable=False),
    sa.Column('local_date', sa.Date(), nullable=False),
    sa.Column('user_id', sa.BigInteger(), nullable=False),
    sa.Column('choice', sa.Integer(), nullable=False),
    sa.Column('correct', sa.Boolean(), nullable=False),
    sa.Column('answered_at', UTCDateTime(), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_daily_answers')),
    sa.UniqueConstraint('guild_id', 'local_date', 'user_id', name=op.f('uq_daily_answers_guild_id_local_date_user_id'))
    )
    with op.batch_alter_table('daily_answers', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_daily_answers_user_id'), ['user_id'], unique=False)

    op.create_table('daily_picks',
    sa.Column('id', BigId, nullable=False),
    sa.Column('guild_id', sa.BigInteger(), nullable=False),
    sa.Column('local_date', sa.Date(), nullable=False),
    sa.Column('track', sa.String(length=64), nullable=False),
    sa.Column('bite_id', sa.String(length=100), nullable=False),
    sa.Column('question_id', sa.String(length=100), nullable=False),
    sa.Column('option_order', sa.JSON(), nullable=False),
    sa.Column('message_ids', sa.JSON(), nullable=True),
    sa.Column('sent_at', UTCDateTime(), nullable=True),
    sa.Column('created_at', UTCDateTime(), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_daily_picks')),
    sa.UniqueConstraint('guild_id', 'local_date', name=op.f('uq_daily_picks_guild_id_local_date'))
    )
    op.create_table('daily_schedules',
    sa.Column('guild_id', sa.BigInteger(), autoincrement=False, nullable=False),
    sa.Column('channel_id', sa.BigInteger(), nullable=False),
    sa.Column('local_time', sa.String(length=5), nullable=False),
    sa.Column('timezone', sa.String(length=64), nullable=False),
    sa.Column('track', sa.String(length=64), nullable=False),
    sa.Column('enabled', sa.Boolean(), nullable=False),
    sa.Column('updated_at', UTCDateTime(), nullable=False),
    sa.PrimaryKeyConstraint('guild_id', name=op.f('pk_daily_schedules'))
    )
    op.create_table('quiz_sessions',
    sa.Column('id', BigId, nullable=False),
    sa.Column('user_id', sa.BigInteger(), nullable=False),
    sa.Column('guild_id', sa.BigInteger(), nullable=False),
    sa.Column('track', sa.String(length=64), nullable=False),
    sa.Column('kind', sa.String(length=16), nullable=False),
    sa.Column('status', sa.String(length=16), nullable=False),
    sa.Column('question_ids', sa.JSON(), nullable=False),
    sa.Column('option_orders', sa.JSON(), nullable=False),
    sa.Column('position', sa.Integer(), nullable=False),
    sa.Column('correct_count', sa.Integer(), nullable=False),
    sa.Column('created_at', UTCDateTime(), nullable=False),
    sa.Column('updated_at', UTCDateTime(), nullable=False),
    sa.Column('finished_at', UTCDateTime(), nullable=True),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_quiz_sessions'))
    )
    with op.batch_alter_table('quiz_sessions', schema=None) as batch_op:
        batch_op.create_index('ix_quiz_sessions_status_updated_at', ['status', 'updated_at'], unique=False)
        batch_op.create_index('uq_quiz_sessions_one_active', ['user_id', 'guild_id'], unique=True, sqlite_where=sa.text("status = 'active'"), postgresql_where=sa.text("status = 'active'"))

    op.create_table('reports',
    sa.Column('id', BigId, nullable=False),
    sa.Column('user_id', sa.BigInteger(), nullable=False),
    sa.Column('guild_id', sa.BigInteger(), nullable=False),
    sa.Column('item_id', sa.String(length=100), nullable=False),
    sa.Column('note', sa.Text(), nullable=False),
    sa.Column('created_at', UTCDateTime(), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_reports'))
    )
    with op.batch_alter_table('reports', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_reports_user_id'), ['user_id'], unique=False)

    op.create_table('users',
    sa.Column('user_id', sa.BigInteger(), autoincrement=False, nullable=False),
    sa.Column('timezone', sa.String(length=64), nullable=False),
    sa.Column('keep_answers', sa.Boolean(), nullable=False),
    sa.Column('leaderboard_opt_out', sa.Boolean(), nullable=False),
    sa.Column('reminders', sa.Boolean(), nullable=False),
    sa.Column('streak_days', sa.Integer(), nullable=False),
    sa.Column('streak_last_day', sa.Date(), nullable=True),
    sa.Column('freeze_week', sa.String(length=10), nullable=True),
    sa.Column('created_at', UTCDateTime(), nullable=False),
    sa.PrimaryKeyConstraint('user_id', name=op.f('pk_users'))
    )
    op.create_table('xp_events',
    sa.Column('id', BigId, nullable=False),
    sa.Column('user_id', sa.BigInteger(), nullable=False),
    sa.Column('guild_id', sa.BigInteger(), nullable=False),
    sa.Column('amount', sa.Integer(), nullable=False),
    sa.Column('source_key', sa.String(length=200), nullable=False),
    sa.Column('created_at', UTCDateTime(), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_xp_events')),
    sa.UniqueConstraint('source_key', name=op.f('uq_xp_events_source_key'))
    )
    with op.batch_alter_table('xp_events', schema=None) as batch_op:
        batch_op.create_index('ix_xp_events_guild_id_created_at', ['guild_id', 'created_at'], unique=False)
        batch_op.create_index(batch_op.f('ix_xp_events_user_id'), ['user_id'], unique=False)

    op.create_table('quiz_answers',
    sa.Column('id', BigId, nullable=False),
    sa.Column('session_id', BigId, nullable=False),
    sa.Column('question_index', sa.Integer(), nullable=False),
    sa.Column('question_id', sa.String(length=100), nullable=False),
    sa.Column('bite_id', sa.String(length=100), nullable=False),
    sa.Column('user_id', sa.BigInteger(), nullable=False),
    sa.Column('guild_id', sa.BigInteger(), nullable=False),
    sa.Column('choice', sa.Integer(), nullable=False),
    sa.Column('correct', sa.Boolean(), nullable=False),
    sa.Column('answered_at', UTCDateTime(), nullable=False),
    sa.ForeignKeyConstraint(['session_id'], ['quiz_sessions.id'], name=op.f('fk_quiz_answers_session_id_quiz_sessions'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_quiz_answers')),
    sa.UniqueConstraint('session_id', 'question_index', name=op.f('uq_quiz_answers_session_id_question_index'))
    )
    with op.batch_alter_table('quiz_answers', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_quiz_answers_user_id'), ['user_id'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('quiz_answers', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_quiz_answers_user_id'))

    op.drop_table('quiz_answers')
    with op.batch_alter_table('xp_events', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_xp_events_user_id'))
        batch_op.drop_index('ix_xp_events_guild_id_created_at')

    op.drop_table('xp_events')
    op.drop_table('users')
    with op.batch_alter_table('reports', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_reports_user_id'))

    op.drop_table('reports')
    with op.batch_alter_table('quiz_sessions', schema=None) as batch_op:
        batch_op.drop_index('uq_quiz_sessions_one_active', sqlite_where=sa.text("status = 'active'"), postgresql_where=sa.text("status = 'active'"))
        batch_op.drop_index('ix_quiz_sessions_status_updated_at')

    op.drop_table('quiz_sessions')
    op.drop_table('daily_schedules')
    op.drop_table('daily_picks')
    with op.batch_alter_table('daily_answers', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_daily_answers_user_id'))

    op.drop_table('daily_answers')
    with op.batch_alter_table('cards', schema=None) as batch_op:
        batch_op.drop_index('ix_cards_user_id_due')
        batch_op.drop_index('ix_cards_due')

    op.drop_table('cards')
    with op.batch_alter_table('attempts', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_attempts_user_id'))

    op.drop_table('attempts')
