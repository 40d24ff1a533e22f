"""SQLite statements on the event loop's thread, without aiosqlite's thread hops.

aiosqlite runs every call on the connection's own thread, and SQLAlchemy's adapter
makes four such calls per statement (open a cursor, execute, fetch the rows, close
it), plus one per commit and per rollback; each is a future, a queue put, a thread
wake-up, a GIL hand-over and an event-loop wake-up. A quiz click ran about seven
statements, and the hops were most of the bot's CPU under load (docs/benchmarks.md,
"Bot load"). A statement on a local SQLite file in WAL mode takes tens of
microseconds, less than one hop: this cursor runs it, rows and all, right where
SQLAlchemy asks, and keeps what SQLAlchemy reads afterwards (description,
rowcount, lastrowid, the rows); commit and rollback are direct too, and the pool's
reset skips a rollback when no transaction is open.

The loop is never blocked on a lock this process holds: no statement yields to the
loop, so a transaction whose work only touches the database runs start to end in one
go, and `Store.run` serialises this process's write transactions with an asyncio
lock besides (a transaction whose work awaits something else holds it). What can
still wait is BEGIN IMMEDIATE while another process writes: at most that process's
(equally short) transaction, bounded by the busy timeout.

Used for every `sqlite+aiosqlite` engine the Store makes (`install()`; the sqlite3
connection is opened with check_same_thread=False), against the SQLAlchemy and
aiosqlite versions pinned in constraints.txt.
"""

from __future__ import annotations

import collections
from typing import Any

from sqlalchemy.dialects.sqlite import aiosqlite as sa_aiosqlite
from sqlalchemy.util import EMPTY_DICT


def _run(connection, operation: str, parameters, many: bool):
    """On the connection's thread: the whole statement, rows included."""
    cursor = connection._conn.cursor()
    try:
        if many:
            cursor.executemany(operation, parameters)
        elif parameters is None:
            cursor.execute(operation)
        else:
            cursor.execute(operation, parameters)
        description = cursor.description
        rows = cursor.fetchall() if description else ()
        return description, rows, cursor.rowcount, cursor.lastrowid
    finally:
        cursor.close()


class InlineCursor(sa_aiosqlite.AsyncAdapt_aiosqlite_cursor):
    __slots__ = ("_description", "_rowcount", "_lastrowid")

    def __init__(self, adapt_connection):  # no aiosqlite cursor: nothing to open on its thread
        self._adapt_connection = adapt_connection
        self._connection = adapt_connection._connection
        self._cursor = None
        self._soft_closed_memoized = EMPTY_DICT
        self._rows = collections.deque()
        self._description = None
        self._rowcount = -1
        self._lastrowid = None

    @property
    def description(self):
        return self._description

    @property
    def rowcount(self) -> int:
        return self._rowcount

    @property
    def lastrowid(self):
        return self._lastrowid

    async def _async_soft_close(self) -> None:
        return None

    def close(self) -> None:
        self._rows.clear()

    async def _statement(self, operation: Any, parameters, many: bool) -> None:
        # On the event loop's thread: no hop at all (see the module docstring for why
        # this cannot block the loop on a lock held in this process).
        description, rows, rowcount, lastrowid = _run(self._connection, operation, parameters, many)
        self._description, self._rowcount, self._lastrowid = description, rowcount, lastrowid
        self._rows = collections.deque(rows)

    async def _execute_async(self, operation: Any, parameters) -> None:
        await self._statement(operation, parameters, False)

    async def _executemany_async(self, operation: Any, seq_of_parameters) -> None:
        await self._statement(operation, seq_of_parameters, True)


class InlineConnection(sa_aiosqlite.AsyncAdapt_aiosqlite_connection):
    __slots__ = ()
    _cursor_cls = InlineCursor

    def rollback(self) -> None:
        """Also the pool's reset on return: nothing to do when no transaction is open."""
        raw = self._connection._connection
        if raw is not None and raw.in_transaction:
            try:
                raw.rollback()
            except Exception as error:
                self._handle_exception(error)

    def commit(self) -> None:
        raw = self._connection._connection
        if raw is not None:
            try:
                raw.commit()
            except Exception as error:
                self._handle_exception(error)


def install(engine) -> None:
    """Make the engine's new connections run their statements inline."""
    dbapi = engine.sync_engine.dialect.dbapi
    original = dbapi.connect
    if getattr(original, "inline", False):
        return

    def connect(*args, **kwargs):
        adapted = original(*args, **kwargs)
        adapted.__class__ = InlineConnection  # same slots, the cursor class differs
        return adapted

    connect.inline = True  # type: ignore[attr-defined]
    dbapi.connect = connect
