"""`coach db upgrade`: apply the packaged migrations to the configured database."""

from __future__ import annotations

import asyncio
import sys

from sqlalchemy.engine import make_url

from coach.config import get_settings
from coach.store import Store


async def _upgrade(url: str) -> str | None:
    async with Store(url) as store:  # Store creates the SQLite file's folder (var/ by default)
        await store.upgrade()
        return await store.current_revision()


def upgrade_command(args) -> int:
    url = get_settings().database_url
    shown = make_url(url).render_as_string(hide_password=True)
    try:
        revision = asyncio.run(_upgrade(url))
    except Exception as error:  # a clear line on stderr: unreachable server, bad URL, locked file
        print(f"coach db upgrade: cannot migrate {shown}: {error}", file=sys.stderr)
        return 1
    print(f"database {shown} is at revision {revision}")
    return 0
