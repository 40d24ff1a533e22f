"""Typed errors the engine raises; adapters turn them into polite messages.

`Coach.answer` and `record_daily_answer` do not raise for the everyday outcomes of a
button click (already answered, not your session, session over): those come back
as `AnswerResult.outcome`. Everything else that the caller got wrong raises.
"""


class CoachError(Exception):
    """Base of the engine's own errors."""


class InvalidRequest(CoachError, ValueError):
    """Bad arguments: a count out of range, an unknown track, a bad timezone..."""


class NotFound(CoachError, LookupError):
    """No such session, schedule, pick or content item."""


class NotOwner(CoachError, PermissionError):
    """The session belongs to someone else."""
