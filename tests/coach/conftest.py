"""Engine test fixtures. The database fixtures come from tests.fixtures.db, which the
root conftest registers as a plugin."""

from __future__ import annotations

import pytest
import pytest_asyncio

from coach.config import load_settings
from coach.engine import Coach
from tests.coach.helpers import Clock, make_catalog


@pytest.fixture(scope="session")
def catalog(tmp_path_factory):
    return make_catalog(tmp_path_factory.mktemp("catalog"))


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def settings():
    return load_settings(session_expiry_minutes=30, _env_file=None)


@pytest_asyncio.fixture
async def coach(store, catalog, settings, clock):
    return Coach(store, catalog, settings, clock=clock, rng_seed=7, enable_fuzzing=False)
