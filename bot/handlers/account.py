"""The member's own account: settings, `/forget`, help, and reports on content."""

from __future__ import annotations

from bot.render import messages as render
from bot.render import texts
from bot.command_table import ANY_TRACK
from bot.handlers.base import Actor, Capability, replies_to_errors
from bot.render.replies import Reply, notice


class AccountHandlers(Capability):
    @replies_to_errors
    async def settings(self, actor: Actor, **changes) -> Reply:
        changes = {k: v for k, v in changes.items() if v is not None}
        if "leaderboard" in changes:  # the option reads "show me"; the store keeps the opt-out
            changes["leaderboard_opt_out"] = not changes.pop("leaderboard")
        if "track" in changes:
            track = changes.pop("track").strip().casefold()
            if track != ANY_TRACK and (refusal := self.unknown_track(track)):
                return refusal
            changes["preferred_track"] = None if track == ANY_TRACK else track
        if not changes:
            return render.user_settings(await self.coach.account.get_settings(actor.user_id), self.catalog.tracks)
        result = await self.coach.account.update_settings(actor.user_id, **changes)
        return render.user_settings(result, self.catalog.tracks, changed=True)

    async def forget(self, actor: Actor) -> Reply:
        return render.forget_confirm(await self.coach.account.ask_to_forget(actor.user_id))

    async def forget_confirmed(self, actor: Actor, code: str) -> Reply:
        if await self.coach.account.forget_confirmed(actor.user_id, code) is None:
            return notice(texts.CONFIRMATION_GONE, outcome="refused")
        return notice(texts.FORGOTTEN, outcome="forgotten", edit=True)

    async def help(self, actor: Actor) -> Reply:
        return render.help_text(self.catalog.tracks, console=actor.front_end == "console")

    async def report_form(self, kind: str, item_id: str) -> Reply:
        return render.report_modal(kind, item_id)

    async def report(self, actor: Actor, kind: str, item_id: str, note: str) -> Reply:
        known = self.catalog.questions if kind == "q" else self.catalog.bites
        if item_id not in known:
            return notice(texts.ITEM_GONE, outcome="not_found")
        note = (note or "").strip()
        if not note:
            return notice(texts.REPORT_EMPTY, outcome="invalid")
        await self.coach.account.report(actor.user_id, actor.guild_id, item_id, note[:1000])
        return notice(texts.REPORTED, outcome="reported")
