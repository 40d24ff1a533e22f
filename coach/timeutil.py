"""Time helpers shared by the services: an aware UTC clock and IANA timezone checks."""

from __future__ import annotations

from datetime import date, datetime, timezone
from functools import lru_cache
from typing import Callable
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

UTC = timezone.utc


def utcnow() -> datetime:
    return datetime.now(UTC)


def aware_clock(clock: Callable[[], datetime]) -> Callable[[], datetime]:
    """`clock`, refusing naive datetimes: every stored time and local date derives from it."""

    def now() -> datetime:
        moment = clock()
        if moment.tzinfo is None:
            raise ValueError("the clock must return timezone-aware datetimes")
        return moment

    return now


@lru_cache(maxsize=1)
def _known_zones() -> frozenset[str]:
    return frozenset(available_timezones())


def echo(text: str, limit: int = 40) -> str:
    """User input quoted back in an error message: printable, and never long."""
    shown = "".join(ch if ch.isprintable() else "?" for ch in str(text)[:limit])
    return repr(shown + ("…" if len(str(text)) > limit else ""))


def validate_timezone(name: str) -> str:
    """Return the IANA name unchanged, or raise ValueError saying why it is not one.

    Checked against the tz database's list first, so odd input (paths, NULs,
    very long strings) never reaches the file lookup inside zoneinfo.
    """
    if not isinstance(name, str) or not name.strip():
        raise ValueError("timezone is empty; use an IANA name such as Europe/Paris")
    name = name.strip()
    if name not in _known_zones() and name != "UTC":
        raise ValueError(f"unknown timezone {echo(name)}; use an IANA name such as America/New_York")
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError) as error:  # pragma: no cover - list and files disagree
        raise ValueError(f"timezone {echo(name)} is not installed: {error}") from None
    return name


def zone(name: str) -> ZoneInfo:
    return ZoneInfo(validate_timezone(name))


def local_date(moment: datetime, timezone_name: str) -> date:
    """The calendar date at `moment` in the given timezone."""
    if moment.tzinfo is None:
        raise ValueError("naive datetime: the engine works in timezone-aware UTC")
    return moment.astimezone(zone(timezone_name)).date()
