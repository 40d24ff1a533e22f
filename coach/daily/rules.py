"""Daily rotation rules as pure functions: when a guild's post is due, and which
bite and question it gets.

DST rule for the post time, in the schedule's timezone:
- a local time that does not exist (the spring-forward gap, e.g. 02:30 on
  2026-03-08 in America/New_York) posts at the same wall-clock offset past the
  gap's start: 02:30 becomes 03:30 local time;
- a local time that happens twice (fall-back, e.g. 01:30 on 2026-11-01 in
  America/New_York) posts once, at the first occurrence (the daylight-time one).
Both follow from PEP 495's fold=0, which is what zoneinfo gives by default.
"""

from __future__ import annotations

import hashlib
import random
import re
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta, timezone
from typing import Iterable, Protocol, Sequence

from coach.timeutil import echo, validate_timezone, zone

_TIME = re.compile(r"([0-9]{1,2}):([0-9]{2})")


def parse_time(text: str) -> time:
    """'HH:MM' (24-hour; one-digit hours allowed) -> time. Raises ValueError otherwise."""
    if not isinstance(text, str):
        raise ValueError("time must be text like 09:30")
    match = _TIME.fullmatch(text.strip())
    if not match:
        raise ValueError(f"time {echo(text, 20)} is not HH:MM (24-hour), e.g. 09:30")
    hour, minute = int(match.group(1)), int(match.group(2))
    if hour > 23 or minute > 59:
        raise ValueError(f"time {echo(text.strip(), 20)} is out of range: hours 00-23, minutes 00-59")
    return time(hour, minute)


def format_time(value: time) -> str:
    return f"{value.hour:02d}:{value.minute:02d}"


class HasPostTime(Protocol):
    local_time: time
    timezone: str


def post_time_on(schedule: HasPostTime, local_day: date) -> datetime:
    """The UTC instant of the post for `local_day` (DST rule in the module docstring)."""
    tz = zone(schedule.timezone)
    wall = datetime.combine(local_day, schedule.local_time).replace(tzinfo=tz, fold=0)
    return wall.astimezone(timezone.utc)


def next_post_time(schedule: HasPostTime, now: datetime) -> datetime:
    """The first post instant strictly after `now`, in UTC."""
    if now.tzinfo is None:
        raise ValueError("now must be timezone-aware")
    today = now.astimezone(zone(schedule.timezone)).date()
    for offset in range(0, 3):
        candidate = post_time_on(schedule, today + timedelta(days=offset))
        if candidate > now:
            return candidate
    raise AssertionError("a post time exists within three local days")  # pragma: no cover


def validate_schedule(local_time: time | str, timezone_name: str) -> tuple[time, str]:
    """Parse and check what an admin typed; raises ValueError with a readable reason."""
    parsed = parse_time(local_time) if isinstance(local_time, str) else local_time
    if not isinstance(parsed, time):
        raise ValueError("time must be HH:MM")
    return time(parsed.hour, parsed.minute), validate_timezone(timezone_name)


@dataclass(frozen=True)
class Candidate:
    bite_id: str
    question_id: str


def _tiebreak(guild_id: int, local_day: date, question_id: str) -> str:
    return hashlib.sha256(f"{guild_id}|{local_day.isoformat()}|{question_id}".encode()).hexdigest()


def choose_daily(
    guild_id: int, local_day: date, candidates: Sequence[Candidate], history: Iterable[Candidate]
) -> Candidate:
    """Pick today's (bite, question) for a guild, given every earlier pick in the track.

    Order of preference: the question posted least often (so no question repeats
    until every question has been posted), then the bite posted least often (so no
    bite repeats until every bite has had its day), then a hash of guild, date and
    question id, which makes the choice deterministic without being alphabetical.
    """
    if not candidates:
        raise ValueError("the track has no questions to post")
    question_uses: dict[str, int] = {}
    bite_uses: dict[str, int] = {}
    for past in history:
        question_uses[past.question_id] = question_uses.get(past.question_id, 0) + 1
        bite_uses[past.bite_id] = bite_uses.get(past.bite_id, 0) + 1
    return min(
        candidates,
        key=lambda c: (
            question_uses.get(c.question_id, 0),
            bite_uses.get(c.bite_id, 0),
            _tiebreak(guild_id, local_day, c.question_id),
        ),
    )


def daily_option_order(guild_id: int, local_day: date, question_id: str, size: int = 4) -> list[int]:
    """A deterministic shuffle of the options for one day's post."""
    order = list(range(size))
    random.Random(_tiebreak(guild_id, local_day, "order:" + question_id)).shuffle(order)
    return order


# ----- the server's first day of the week --------------------------------------------------

WEEKDAY_NAMES = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
# Where the week starts on Sunday or Saturday (CLDR's supplemental weekData, firstDay);
# everywhere else it starts on Monday (ISO 8601, CLDR's default).
_SUNDAY_FIRST = frozenset(
    "AG AS BD BR BS BT BW BZ CA CN CO DM DO ET GT GU HK HN ID IL IN JM JP KE KH KR LA MH MM MO MT MX MZ NI NP "
    "PA PE PH PK PR PT PY SA SG SV TH TT TW UM US VE VI WS YE ZA ZW".split()
)
_SATURDAY_FIRST = frozenset("AE AF BH DJ DZ EG IQ IR JO KW LY OM QA SD SY".split())
# Discord's locales without a region, and the region they stand for.
_LANGUAGE_REGION = {"id": "ID", "hi": "IN", "th": "TH", "ja": "JP", "ko": "KR", "he": "IL", "ar": "EG"}


def first_weekday_for_locale(locale: str | None) -> int:
    """0 (Monday) ... 6 (Sunday): where a week starts for a Discord locale ("en-US",
    "pt-BR", "ja", "fr", ...), following CLDR; Monday when the locale says nothing."""
    if not locale:
        return 0
    language, _, region = locale.replace("_", "-").partition("-")
    region = (region or _LANGUAGE_REGION.get(language.lower(), "")).upper()
    if region in _SUNDAY_FIRST:
        return 6
    if region in _SATURDAY_FIRST:
        return 5
    return 0


def parse_weekday(text: str) -> int:
    """'monday' / 'Sun' / ... -> 0-6; ValueError otherwise."""
    word = (text or "").strip().lower()
    for index, name in enumerate(WEEKDAY_NAMES):
        if len(word) >= 3 and name.startswith(word):
            return index
    raise ValueError(f"{echo(text, 20)} is not a day of the week")


def is_week_start(schedule, local_day: date) -> bool:
    """Whether `local_day` is the first day of the server's week (the weekly picture's day)."""
    return local_day.weekday() == getattr(schedule, "week_start", 0)


def main_schedule(schedules):
    """Of a server's schedules (by channel), the one that speaks for the server where one is
    needed (its timezone for the week, its track for `/quiz` with no track): the first one
    on, else the first one, else None."""
    schedules = list(schedules)
    return next((s for s in schedules if s.enabled), schedules[0] if schedules else None)


def schedule_for(schedules, channel_id: int | None):
    """The channel's schedule (None when it has none); with no channel, the main one."""
    if channel_id is None:
        return main_schedule(schedules)
    return next((s for s in schedules if s.channel_id == channel_id), None)
