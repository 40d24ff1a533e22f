"""The store itself: UTC round trips, migrations matching the models, SQLite
pragmas, and `coach db upgrade`."""

from __future__ import annotations

import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import select

from coach.migrations import alembic_config, head_revision
from coach.store import Store
from coach.store.models import Base, XpEvent

REPO = Path(__file__).resolve().parents[3]


async def test_datetimes_come_back_aware_utc(store):
    tokyo = datetime(2026, 7, 1, 9, 30, 15, 123456, tzinfo=ZoneInfo("Asia/Tokyo"))

    async def write(db):
        db.add(XpEvent(user_id=1, guild_id=2, amount=5, source_key="t", created_at=tokyo))

    await store.run(write)
    stored = await store.run(lambda db: db.scalar(select(XpEvent.created_at)))
    assert stored == tokyo and stored.tzinfo == timezone.utc and stored.utcoffset() == timedelta(0)
    later = await store.run(
        lambda db: db.scalar(select(XpEvent.id).where(XpEvent.created_at > tokyo - timedelta(microseconds=1)))
    )
    assert later is not None  # comparisons in SQL use the same representation


async def test_naive_datetimes_are_refused(store):
    async def write(db):
        db.add(XpEvent(user_id=1, guild_id=2, amount=5, source_key="n", created_at=datetime(2026, 1, 1)))

    with pytest.raises(Exception, match="naive"):
        await store.run(write)


async def test_migrations_match_the_models_and_upgrade_is_repeatable(store):
    await store.upgrade()  # already at head: a no-op
    heads = ScriptDirectory.from_config(alembic_config(store.url)).get_heads()  # one line of history
    assert len(heads) == 1, f"the migrations have {len(heads)} heads: {heads}"
    assert await store.current_revision() == heads[0]

    def diff(sync_connection):
        return compare_metadata(MigrationContext.configure(sync_connection, opts={"compare_type": True}), Base.metadata)

    async with store.engine.connect() as connection:
        assert await connection.run_sync(diff) == []


async def test_bigint_discord_ids(store):
    big = 1_234_567_890_123_456_789  # snowflakes exceed 32 bits

    async def write(db):
        db.add(XpEvent(user_id=big, guild_id=big - 1, amount=1, source_key="big", created_at=datetime.now(timezone.utc)))

    await store.run(write)
    assert await store.run(lambda db: db.scalar(select(XpEvent.user_id))) == big


async def test_sqlite_runs_in_wal_with_a_busy_timeout(tmp_path):
    async with Store(f"sqlite+aiosqlite:///{tmp_path / 'nested' / 'c.db'}", busy_timeout_ms=4321) as store:
        async with store.engine.connect() as connection:
            assert (await connection.exec_driver_sql("PRAGMA journal_mode")).scalar() == "wal"
            assert (await connection.exec_driver_sql("PRAGMA busy_timeout")).scalar() == 4321
            assert (await connection.exec_driver_sql("PRAGMA foreign_keys")).scalar() == 1
    assert (tmp_path / "nested").is_dir()


def test_cli_db_upgrade_creates_var_and_migrates(tmp_path):
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "DATABASE_URL": "sqlite+aiosqlite:///var/coach.db"}
    run = subprocess.run(
        [sys.executable, "-c", "import sys; from bot.cli.main import main; sys.exit(main(['db', 'upgrade']))"],
        cwd=tmp_path, env={**env, "PYTHONPATH": str(REPO)}, capture_output=True, text=True, timeout=120,
    )
    assert run.returncode == 0, run.stderr
    assert f"revision {head_revision()}" in run.stdout
    assert (tmp_path / "var" / "coach.db").is_file()


def test_cli_db_upgrade_reports_an_unreachable_database(tmp_path):
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "PYTHONPATH": str(REPO),
           "DATABASE_URL": "postgresql+asyncpg://postgres@127.0.0.1:1/nothing"}
    run = subprocess.run(
        [sys.executable, "-c", "import sys; from bot.cli.main import main; sys.exit(main(['db', 'upgrade']))"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120,
    )
    assert run.returncode == 1 and "cannot migrate" in run.stderr and run.stdout == ""

