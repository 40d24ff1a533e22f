"""Alembic migrations, shipped inside the package so an installed wheel can upgrade
its database without a repo-root alembic.ini."""

from __future__ import annotations

from pathlib import Path

MIGRATIONS_DIR = Path(__file__).resolve().parent


def alembic_config(url: str):
    """An Alembic Config pointing at this folder, for `url` (async URLs are fine:
    env.py runs on the connection the Store hands it, or builds an async engine)."""
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return config


def head_revision() -> str:
    """The newest migration shipped (the one `Store.upgrade()` goes to)."""
    from alembic.script import ScriptDirectory

    return ScriptDirectory.from_config(alembic_config("sqlite://")).get_current_head()
