"""What a handler returns, independent of Discord: text, one embed, buttons, a picture, or a modal.

The Discord adapter turns a Reply into discord.py objects; the console prints it.
Both press buttons by `custom_id`, so the same handler serves both.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Style = Literal["primary", "secondary", "success", "danger"]


@dataclass(frozen=True)
class Button:
    label: str
    custom_id: str
    style: Style = "secondary"
    row: int = 0
    disabled: bool = False
    key: str | None = None  # the console shortcut (a-d, next, ...); None = by number


@dataclass(frozen=True)
class Field:
    name: str
    value: str
    inline: bool = False


@dataclass(frozen=True)
class Embed:
    title: str = ""
    description: str = ""
    fields: tuple[Field, ...] = ()
    footer: str = ""
    colour: int = 0x5865F2


@dataclass(frozen=True)
class TextInput:
    custom_id: str
    label: str
    paragraph: bool = True
    max_length: int = 4000
    required: bool = True
    placeholder: str = ""
    value: str = ""


@dataclass(frozen=True)
class Modal:
    title: str
    custom_id: str
    inputs: tuple[TextInput, ...]


@dataclass(frozen=True)
class Attachment:
    """A file sent with the reply (a picture): Discord attaches it, the console saves it."""

    filename: str
    data: bytes = field(repr=False)
    description: str = ""  # what it shows, for screen readers (Discord: at most 1024 characters)


@dataclass(frozen=True)
class Reply:
    content: str = ""
    embed: Embed | None = None
    buttons: tuple[Button, ...] = ()
    ephemeral: bool = True
    # True: replace the message whose button was pressed; False: a new message.
    edit: bool = False
    modal: Modal | None = None
    attachment: Attachment | None = None
    # For logs and tests: what happened ("answered", "refused", "cooldown", ...).
    outcome: str = "ok"
    extra: dict = field(default_factory=dict, compare=False)


def notice(text: str, *, outcome: str = "ok", edit: bool = False) -> Reply:
    """A short ephemeral text reply."""
    return Reply(content=text, outcome=outcome, edit=edit)
