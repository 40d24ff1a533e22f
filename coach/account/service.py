"""Per-user settings, "forget me", and "report this question"."""

from __future__ import annotations

import secrets
from datetime import datetime, timedelta
from typing import Callable

from sqlalchemy import delete, select, update

from coach.catalog import require_track
from coach.errors import InvalidRequest, NotFound
from coach.progress.ledger import Ledger
from coach.results import Report, UserSettings
from coach.store import Store, state
from coach.store.models import USER_OWNED, Attempt, ReportRow, User
from coach.timeutil import echo, validate_timezone
from content import Catalog

FORGET_KIND = "forget_confirmation"
FORGET_CONFIRM_TTL = timedelta(minutes=10)
SETTING_FIELDS = ("timezone", "keep_answers", "leaderboard_opt_out", "reminders", "preferred_track")
FLAGS = ("keep_answers", "leaderboard_opt_out", "reminders")
REPORT_NOTE_MAX = 2000


def _settings(user: User) -> UserSettings:
    return UserSettings(user.user_id, user.timezone, user.keep_answers, user.leaderboard_opt_out, user.reminders,
                        user.preferred_track)


class AccountService:
    def __init__(self, store: Store, catalog: Catalog, ledger: Ledger, now: Callable[[], datetime]):
        self.store, self.catalog, self.ledger, self.now = store, catalog, ledger, now

    async def get_settings(self, user_id: int) -> UserSettings:
        async def work(db):
            user = await db.get(User, user_id)
            return _settings(user) if user else UserSettings(user_id)

        return await self.store.read(work)

    async def update_settings(self, user_id: int, **changes) -> UserSettings:
        """Change any of timezone (IANA name), keep_answers, leaderboard_opt_out, reminders,
        preferred_track (a track id, or None to forget it). Turning keep_answers off also
        erases the answer texts kept so far."""
        unknown = set(changes) - set(SETTING_FIELDS)
        if unknown:
            raise InvalidRequest(f"unknown setting(s): {', '.join(sorted(unknown))}")
        if "timezone" in changes:
            try:
                changes["timezone"] = validate_timezone(changes["timezone"])
            except ValueError as error:
                raise InvalidRequest(str(error)) from None
        track = changes.get("preferred_track")
        if track is not None:
            require_track(self.catalog, track)
        for flag in FLAGS:
            if flag in changes and not isinstance(changes[flag], bool):
                raise InvalidRequest(f"{flag} must be true or false")

        async def work(db):
            user = await self.ledger.user_row(db, user_id)
            for name, value in changes.items():
                setattr(user, name, value)
            if changes.get("keep_answers") is False:
                await db.execute(
                    update(Attempt).where(Attempt.user_id == user_id, Attempt.answer_text.is_not(None))
                    .values(answer_text=None)
                )
            return _settings(user)

        return await self.store.run(work)

    async def forget(self, user_id: int) -> int:
        """Delete every row about the user (sessions, answers, cards, attempts, XP,
        daily answers, reports, settings, and their short-lived state: answer drafts,
        cool-down uses, confirmations); returns how many rows went."""
        return await self.store.run(lambda db: self._forget(db, user_id))

    async def _forget(self, db, user_id: int) -> int:
        removed = await state.remove_owned(db, state.user_owner(user_id))
        for model, column in USER_OWNED:
            result = await db.execute(delete(model).where(column == user_id))
            removed += result.rowcount or 0
        return removed

    async def ask_to_forget(self, user_id: int) -> str:
        """Start `/forget`: a one-time confirmation code for the user's "Delete my data"
        button, valid for `FORGET_CONFIRM_TTL`, in the database so any process (or this
        one after a restart) can honour the click."""
        code = secrets.token_hex(4)
        await self.store.put_state(FORGET_KIND, f"{user_id}:{code}", {}, FORGET_CONFIRM_TTL,
                                   owner=state.user_owner(user_id), now=self.now())
        return code

    async def forget_confirmed(self, user_id: int, code: str) -> int | None:
        """Finish `/forget` if `code` is the user's live confirmation: the code is used up
        and the data deleted in one transaction. None when the code is unknown, expired,
        already used, or another user's."""

        async def work(db):
            if await state.take(db, FORGET_KIND, f"{user_id}:{code}", now=self.now()) is None:
                return None
            return await self._forget(db, user_id)

        return await self.store.run(work)

    async def report(self, user_id: int, guild_id: int, item_id: str, note: str) -> Report:
        """File a "report this question/bite" note for the maintainers."""
        if item_id not in self.catalog.questions and item_id not in self.catalog.bites:
            raise NotFound(f"no question or bite {echo(item_id)}")
        note = (note or "").strip()
        if not note:
            raise InvalidRequest("say what is wrong with it")

        async def work(db):
            row = ReportRow(user_id=user_id, guild_id=guild_id, item_id=item_id, note=note[:REPORT_NOTE_MAX],
                            created_at=self.now())
            db.add(row)
            await db.flush()
            return _report(row)

        return await self.store.run(work)

    async def list_reports(self) -> list[Report]:
        async def work(db):
            rows = (await db.execute(select(ReportRow).order_by(ReportRow.created_at, ReportRow.id))).scalars().all()
            return [_report(r) for r in rows]

        return await self.store.read(work)


def _report(row: ReportRow) -> Report:
    return Report(row.id, row.user_id, row.guild_id, row.item_id, row.note, row.created_at)
