"""Pictures of progress: pure functions from what the coach returns to PNG bytes
(matplotlib's object API, never pyplot), drawn in a small pool of worker processes.

Importing this package loads no matplotlib: the worker processes do (`render.py`)."""

from bot.pictures.models import MapPicture, Picture, ScorecardPicture, StatsPicture, WeekPicture

__all__ = ["MapPicture", "Picture", "ScorecardPicture", "StatsPicture", "WeekPicture"]
