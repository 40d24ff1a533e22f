"""The async database handle: engine set-up per backend, transactions with one
retry on a dropped connection, and `upgrade()` to run the packaged migrations."""

from __future__ import annotations

import asyncio
import contextvars
import logging
from pathlib import Path
from datetime import datetime, timedelta
from typing import Awaitable, Callable, TypeVar

from sqlalchemy import event
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError, OperationalError
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker, create_async_engine

from coach.store import sqlite_fast, state

log = logging.getLogger(__name__)
T = TypeVar("T")

SQLITE_BUSY_TIMEOUT_MS = 10_000
# The task that holds this process's SQLite write turn, so its nested `run` calls do not wait for
# themselves. A task, not a flag: a task created inside the transaction inherits the context, and
# must still take its own turn (it may write after the transaction ends, beside another writer).
_WRITER: contextvars.ContextVar[asyncio.Task | None] = contextvars.ContextVar("coach_store_writer", default=None)
READ_ONLY_OPTION = "coach_read_only"


def _configure_sqlite(engine: AsyncEngine, busy_timeout_ms: int) -> None:
    """WAL so readers never block the writer; a busy timeout so a second writer
    waits instead of failing; and BEGIN IMMEDIATE so every transaction takes the
    write lock up front (read-then-write transactions cannot lose an update)."""

    @event.listens_for(engine.sync_engine, "connect")
    def _on_connect(dbapi_connection, _record):
        dbapi_connection.isolation_level = None  # we emit BEGIN ourselves
        cursor = dbapi_connection.cursor()
        cursor.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
        cursor.execute("PRAGMA journal_mode = WAL")
        cursor.execute("PRAGMA foreign_keys = ON")
        cursor.execute("PRAGMA synchronous = NORMAL")
        cursor.close()

    @event.listens_for(engine.sync_engine, "begin")
    def _on_begin(connection):
        # Reads (Store.read) begin deferred so a writer holding the lock never blocks them.
        reading = connection.get_execution_options().get(READ_ONLY_OPTION, False)
        connection.exec_driver_sql("BEGIN" if reading else "BEGIN IMMEDIATE")


def _is_disconnect(error: DBAPIError) -> bool:
    return bool(getattr(error, "connection_invalidated", False))


def _is_locked(error: DBAPIError) -> bool:
    return isinstance(error, OperationalError) and "database is locked" in str(error.orig)


class Store:
    """One per process (or per test). `url` is a SQLAlchemy async URL."""

    def __init__(self, url: str, *, busy_timeout_ms: int = SQLITE_BUSY_TIMEOUT_MS, echo: bool = False):
        self.url = url
        parsed = make_url(url)
        self.dialect = parsed.get_backend_name()
        if self.dialect == "sqlite":
            database = parsed.database or ""
            if database and database != ":memory:":
                Path(database).parent.mkdir(parents=True, exist_ok=True)
            self.engine = create_async_engine(
                url, echo=echo, connect_args={"timeout": busy_timeout_ms / 1000, "check_same_thread": False}
            )
            _configure_sqlite(self.engine, busy_timeout_ms)
            sqlite_fast.install(self.engine)
        else:
            self.engine = create_async_engine(url, echo=echo, pool_pre_ping=True)
        self._write_lock: asyncio.Lock | None = None
        self._write_lock_loop = None
        self.sessions = async_sessionmaker(self.engine, expire_on_commit=False)
        self._read_sessions = async_sessionmaker(
            self.engine.execution_options(**{READ_ONLY_OPTION: True}), expire_on_commit=False
        )

    async def run(self, work: Callable[[AsyncSession], Awaitable[T]], *, read_only: bool = False) -> T:
        """Run `work` in one transaction and commit it.

        A connection that died under us (PostgreSQL restarted, backend killed, network
        cut) or a SQLite lock that outlasted the busy timeout gets exactly one retry
        on a fresh connection. `work` must therefore be safe to run twice: every write
        in the engine is guarded by a unique constraint or a conditional update.
        `read_only=True` (or `read`) is for work that writes nothing: on SQLite it does
        not take the write lock, so it runs even while another writer holds it.
        """
        holds_turn = _WRITER.get() is not None and _WRITER.get() is asyncio.current_task()
        if self.dialect == "sqlite" and not read_only and not holds_turn:
            # SQLite statements run on the loop (coach/store/sqlite_fast.py): this process's
            # writers take turns here, so none waits on the file lock another one holds.
            async with self._sqlite_write_lock():
                token = _WRITER.set(asyncio.current_task())
                try:
                    return await self._transaction(work, self.sessions)
                finally:
                    _WRITER.reset(token)
        return await self._transaction(work, self._read_sessions if read_only else self.sessions)

    def _sqlite_write_lock(self) -> asyncio.Lock:
        loop = asyncio.get_running_loop()
        if self._write_lock_loop is not loop:  # a Store can outlive a test's event loop
            self._write_lock, self._write_lock_loop = asyncio.Lock(), loop
        return self._write_lock

    async def _transaction(self, work: Callable[[AsyncSession], Awaitable[T]], factory) -> T:
        for attempt in (1, 2):
            try:
                async with factory() as session:
                    async with session.begin():
                        return await work(session)
            except DBAPIError as error:
                retryable = _is_disconnect(error) or _is_locked(error)
                if attempt == 2 or not retryable:
                    raise
                log.warning("database transaction failed (%s); retrying once", type(error.orig).__name__)
                await asyncio.sleep(0.05)
        raise AssertionError("unreachable")

    async def read(self, work: Callable[[AsyncSession], Awaitable[T]]) -> T:
        """`run(work, read_only=True)`."""
        return await self.run(work, read_only=True)

    # Expiring state (coach/store/state.py): one transaction each. `now` defaults to the
    # wall clock (aware UTC); tests pass their own.

    async def put_state(self, kind: str, key: str, value: dict, ttl: timedelta, *,
                        owner: str | None = None, now: datetime | None = None) -> None:
        """Upsert: the row lives until `now + ttl`."""
        await self.run(lambda db: state.put(db, kind, key, value, ttl, owner=owner, now=now))

    async def get_state(self, kind: str, key: str, *, now: datetime | None = None) -> dict | None:
        """The live value, or None if absent or expired."""
        return await self.read(lambda db: state.get(db, kind, key, now=now))

    async def take_state(self, kind: str, key: str, *, now: datetime | None = None) -> dict | None:
        """Get and delete in one step (one-shot tokens): concurrent takers get it once."""
        return await self.run(lambda db: state.take(db, kind, key, now=now))

    async def claim_state(self, kind: str, key: str, value: dict, ttl: timedelta, *, owner: str | None = None,
                          reclaim_own: bool = False, now: datetime | None = None) -> bool:
        """Insert if absent or expired; False if a live row exists (with `reclaim_own`, a
        live row of another owner). Exactly one of several concurrent claimers, in any
        process, gets True."""
        return await self.run(
            lambda db: state.claim(db, kind, key, value, ttl, owner=owner, reclaim_own=reclaim_own, now=now)
        )

    async def delete_state(self, kind: str, key: str) -> None:
        await self.run(lambda db: state.remove(db, kind, key))

    async def purge_expired_state(self, now: datetime | None = None) -> int:
        """Delete every expired row; returns how many."""
        return await self.run(lambda db: state.purge_expired(db, now=now))

    async def upgrade(self, revision: str = "head") -> None:
        """Apply the packaged Alembic migrations up to `revision`."""
        from coach.migrations import alembic_config  # local: alembic is only needed here

        def _upgrade(sync_connection):
            from alembic import command

            config = alembic_config(self.url)
            config.attributes["connection"] = sync_connection
            command.upgrade(config, revision)

        async with self.engine.begin() as connection:
            await connection.run_sync(_upgrade)

    async def current_revision(self) -> str | None:
        def _current(sync_connection):
            from alembic.runtime.migration import MigrationContext

            return MigrationContext.configure(sync_connection).get_current_revision()

        async with self.engine.connect() as connection:
            return await connection.run_sync(_current)

    async def dispose(self) -> None:
        await self.engine.dispose()

    async def __aenter__(self) -> "Store":
        return self

    async def __aexit__(self, *exc) -> None:
        await self.dispose()
