"""One thread hop per SQLite statement instead of four.

aiosqlite runs every call on the connection's own thread, and SQLAlchemy's adapter
makes four such calls per statement (open a cursor, execute, fetch the rows, close
it); each is a future, a queue put, a thread wake-up and an event-loop wake-up. A
quiz click runs about seven statements, so the hops were most of the bot's CPU
under load (docs/benchmarks.md, "Bot load"). This cursor does the four steps in
one call on the connection's thread and keeps what SQLAlchemy reads afterwards
(description, rowcount, lastrowid, the rows). A connection that is not inside a
transaction skips the rollback the pool issues when it takes the connection back.

Used for every `sqlite+aiosqlite` engine the Store makes (`install()`), against the
SQLAlchemy and aiosqlite versions pinned in constraints.txt.
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


class OneHopCursor(sa_aiosqlite.AsyncAdapt_aiosqlite_cursor):
    __slots__ = ("_description", "_rowcount", "_lastrowid")

    def __init__(self, adapt_connection):  # no aiosqlite cursor: nothing to open
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
        async with self._adapt_connection._execute_mutex:
            description, rows, rowcount, lastrowid = await self._connection._execute(
                _run, self._connection, operation, parameters, many)
        self._description, self._rowcount, self._lastrowid = description, rowcount, lastrowid
        self._rows = collections.deque(rows)

    async def _execute_async(self, operation: Any, parameters) -> None:
        await self._statement(operation, parameters, False)

    async def _executemany_async(self, operation: Any, seq_of_parameters) -> None:
        await self._statement(operation, seq_of_parameters, True)


class OneHopConnection(sa_aiosqlite.AsyncAdapt_aiosqlite_connection):
    __slots__ = ()
    _cursor_cls = OneHopCursor

    def rollback(self) -> None:
        """The pool's reset on return: a hop only when a transaction is really open (the
        flag is read here: the connection is idle, its thread is not using it)."""
        raw = self._connection._connection
        if raw is not None and raw.in_transaction:
            super().rollback()


def install(engine) -> None:
    """Make the engine's new connections use the one-hop cursor."""
    dbapi = engine.sync_engine.dialect.dbapi
    original = dbapi.connect
    if getattr(original, "one_hop", False):
        return

    def connect(*args, **kwargs):
        adapted = original(*args, **kwargs)
        adapted.__class__ = OneHopConnection  # same slots, the cursor class differs
        return adapted

    connect.one_hop = True  # type: ignore[attr-defined]
    dbapi.connect = connect
