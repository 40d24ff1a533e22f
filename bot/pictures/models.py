"""What each picture is drawn from: the coach's results plus the names only the adapter
knows. Frozen dataclasses of plain values, so they cross to the worker process by pickle."""

from __future__ import annotations

from dataclasses import dataclass, field

from coach.interview.rules import Scorecard
from coach.results import GuildWeek, MasteryMap, ProgressHistory, Stats


@dataclass(frozen=True)
class StatsPicture:
    """`/stats`: accuracy and explanation scores by week, the streak calendar, XP per week,
    reviews due in the coming days."""

    name: str  # the member's display name
    stats: Stats
    history: ProgressHistory
    filename: str = "progress.png"


@dataclass(frozen=True)
class MapPicture:
    """`/stats view:map`: every bite of a track as a tile coloured by mastery."""

    name: str
    map: MasteryMap
    filename: str = "bite-map.png"


@dataclass(frozen=True)
class WeekPicture:
    """The server's week, posted with the daily post on its first day of the week."""

    server: str  # the server's name
    week: GuildWeek
    names: dict[int, str] = field(default_factory=dict)  # leaders' display names
    filename: str = "server-week.png"


@dataclass(frozen=True)
class ScorecardPicture:
    """An interview's scorecard: the signal, and what became of every key point."""

    name: str
    card: Scorecard
    filename: str = "interview-scorecard.png"


Picture = StatsPicture | MapPicture | WeekPicture | ScorecardPicture
