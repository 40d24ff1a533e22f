"""Replies as discord.py objects, and the one dynamic button that routes every click.

Views are stopped before they are sent: discord.py then keeps no per-message state,
and every click reaches `CoachButton` through its `custom_id` template, also after a
restart (a persistent view whose state lives in the id and the database).
"""

from __future__ import annotations

import io
import re

import discord

from bot import custom_ids
from bot.actions import BUTTON_ACTIONS
from bot.render.replies import Attachment, Embed, Modal, Reply

_STYLES = {
    "primary": discord.ButtonStyle.primary,
    "secondary": discord.ButtonStyle.secondary,
    "success": discord.ButtonStyle.success,
    "danger": discord.ButtonStyle.danger,
}
# One template for all of them (group names must be unique, so they are dropped here).
BUTTON_TEMPLATE = "^(?:" + "|".join(
    re.sub(r"\(\?P<\w+>", "(?:", custom_ids.TEMPLATES[action]) for action in BUTTON_ACTIONS
) + ")$"


def to_embed(embed: Embed) -> discord.Embed:
    out = discord.Embed(title=embed.title or None, description=embed.description or None, colour=embed.colour)
    for field in embed.fields:
        out.add_field(name=field.name, value=field.value, inline=field.inline)
    if embed.footer:
        out.set_footer(text=embed.footer)
    return out


def to_view(reply: Reply) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    for button in reply.buttons:
        view.add_item(discord.ui.Button(label=button.label, custom_id=button.custom_id,
                                        style=_STYLES[button.style], row=button.row, disabled=button.disabled))
    view.stop()  # not stored: CoachButton handles the clicks
    return view


class AnswerModal(discord.ui.Modal):
    """Only renders: submissions are handled in `on_interaction` by custom_id, so they
    work whether or not this process sent the modal."""

    def __init__(self, spec: Modal):
        super().__init__(title=spec.title, custom_id=spec.custom_id, timeout=None)
        for field in spec.inputs:
            self.add_item(discord.ui.TextInput(
                label=field.label, custom_id=field.custom_id,
                style=discord.TextStyle.paragraph if field.paragraph else discord.TextStyle.short,
                max_length=field.max_length, required=field.required,
                placeholder=field.placeholder or None, default=field.value or None,
            ))
        self.stop()


def to_file(attachment: Attachment) -> discord.File:
    return discord.File(io.BytesIO(attachment.data), filename=attachment.filename,
                        description=attachment.description or None)


def message_kwargs(reply: Reply, *, editing: bool = False) -> dict:
    """Keyword arguments for send_message / followup.send / channel.send, or with `editing`
    for edit_message / edit_original_response (which take `attachments`, not `file`)."""
    kwargs = {"content": reply.content or None, "embed": to_embed(reply.embed) if reply.embed else None}
    kwargs["view"] = to_view(reply)
    if reply.attachment is not None:
        if editing:
            kwargs["attachments"] = [to_file(reply.attachment)]
        else:
            kwargs["file"] = to_file(reply.attachment)
    return kwargs


def modal_trigger(reply: Reply) -> Reply:
    """After a defer a modal can no longer be opened: offer the button that opens it."""
    decoded = custom_ids.decode(reply.modal.custom_id) if reply.modal else None
    label, text = "Answer", "Press the button to type your answer again."
    if decoded is not None and decoded.action == "answer_modal" and decoded.bite:
        trigger = custom_ids.explain(decoded.bite)
    elif decoded is not None and decoded.action == "report_modal":
        trigger = custom_ids.report(decoded.kind, decoded.item)
    elif decoded is not None and decoded.action == "voice_modal":
        trigger = custom_ids.voice_fix(decoded.token)
        label, text = "Fix the transcript", "Press the button to open the transcript again."
    else:
        return Reply(content="Run `/explain` to answer again.", outcome=reply.outcome)
    from bot.render.replies import Button

    return Reply(content=text, buttons=(Button(label, trigger, "success"),), outcome=reply.outcome)


class CoachButton(discord.ui.DynamicItem[discord.ui.Button], template=BUTTON_TEMPLATE):
    """Every button the bot sends. State is in the custom_id; the click goes to the adapter."""

    def __init__(self, custom_id: str):
        super().__init__(discord.ui.Button(custom_id=custom_id, label="·"))
        self.custom_id_value = custom_id

    @classmethod
    async def from_custom_id(cls, interaction, item, match):
        return cls(item.custom_id)

    async def callback(self, interaction: discord.Interaction) -> None:
        await interaction.client.adapter.on_press(interaction, self.custom_id_value)
