"""Local dates and timezone names, as every service reads them."""

from __future__ import annotations

from datetime import date, datetime, timezone

import pytest

from coach.timeutil import aware_clock, local_date, validate_timezone

NY = "America/New_York"


def test_local_date_follows_the_users_timezone():
    late_evening_ny = datetime(2026, 3, 3, 3, 30, tzinfo=timezone.utc)  # 22:30 on the 2nd in New York
    assert local_date(late_evening_ny, NY) == date(2026, 3, 2)
    assert local_date(late_evening_ny, "UTC") == date(2026, 3, 3)
    assert local_date(late_evening_ny, "Pacific/Kiritimati") == date(2026, 3, 3)


@pytest.mark.parametrize("bad", ["", "Mars/Olympus", "../etc/passwd", "utc ", "New York", "\x00"])
def test_bad_timezones_are_refused(bad):
    with pytest.raises(ValueError):
        validate_timezone(bad)


def test_the_services_clock_refuses_naive_datetimes():
    now = aware_clock(lambda: datetime(2026, 3, 2, 12))
    with pytest.raises(ValueError, match="timezone-aware"):
        now()
    aware = datetime(2026, 3, 2, 12, tzinfo=timezone.utc)
    assert aware_clock(lambda: aware)() == aware
