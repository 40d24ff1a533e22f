"""Answer drafts for "grade as another bite": the text of a user's last answer, kept so a
"Grade as: <bite>" button can grade it again without asking for it twice.

A draft is answer text, so it is kept as little as possible: only for that button, for
at most `TTL`, readable only by the user who wrote it, and used once (the regrade takes
it; the new result gets a new draft). It lives in the database's expiring state so
another bot process, or this one after a restart, can serve the button; expired drafts
are purged with the rest of the expiring state, and `/forget` deletes a user's at once.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Callable

from coach.store import state
from coach.timeutil import utcnow

DRAFT_KIND = "answer_draft"
# What /settings and the README promise: no draft is kept longer than this. It is
# readable for one purge interval less, so the purge deletes it in time.
KEPT_AT_MOST = timedelta(minutes=15)
TTL = KEPT_AT_MOST - state.PURGE_EVERY


@dataclass(frozen=True)
class Draft:
    token: str
    text: str
    until: datetime  # aware UTC: when it stops being readable


class AnswerDrafts:
    def __init__(self, store, clock: Callable[[], datetime] = utcnow, ttl: timedelta = TTL):
        self.store, self.clock, self.ttl = store, clock, ttl

    @staticmethod
    def _key(user_id: int, token: str) -> str:
        return f"{int(user_id)}:{token}"

    async def keep(self, user_id: int, text: str) -> str:
        """Hold the answer; returns the token the button carries."""
        token = secrets.token_hex(8)
        now = self.clock()
        value = {"text": text, "until": (now + self.ttl).isoformat()}
        await self.store.put_state(DRAFT_KIND, self._key(user_id, token), value, self.ttl,
                                   owner=state.user_owner(user_id), now=now)
        return token

    async def take(self, user_id: int, token: str) -> Draft | None:
        """The draft, removed as it is read; None when it expired, was used, or is someone
        else's (the key includes the user, so another user's token finds nothing)."""
        value = await self.store.take_state(DRAFT_KIND, self._key(user_id, token), now=self.clock())
        if value is None:
            return None
        return Draft(token, value["text"], datetime.fromisoformat(value["until"]))

    async def give_back(self, user_id: int, draft: Draft) -> None:
        """Put a taken draft back for the rest of its time: the regrade it was taken for did
        not run (the cool-down refused it), so the button should still work later."""
        now = self.clock()
        if draft.until > now:
            value = {"text": draft.text, "until": draft.until.isoformat()}
            await self.store.put_state(DRAFT_KIND, self._key(user_id, draft.token), value, draft.until - now,
                                       owner=state.user_owner(user_id), now=now)
