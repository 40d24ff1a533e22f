"""Discord's size limits, and helpers that cut text to fit them."""

from __future__ import annotations

from dataclasses import replace

from bot.render.replies import Attachment, Button, Embed, Field, Modal, Reply, TextInput

CONTENT = 2000
EMBED_TITLE = 256
EMBED_DESCRIPTION = 4096
EMBED_FIELDS = 25
FIELD_NAME = 256
FIELD_VALUE = 1024
FOOTER = 2048
EMBED_TOTAL = 6000
ROWS = 5
PER_ROW = 5
CUSTOM_ID = 100
BUTTON_LABEL = 80
MODAL_TITLE = 45
INPUT_LABEL = 45
INPUT_VALUE = 4000
PLACEHOLDER = 100
ATTACHMENT_DESCRIPTION = 1024
ATTACHMENT_BYTES = 8 * 1024 * 1024  # the smallest upload limit a server can have (Discord: 10 MiB today)

ELLIPSIS = "…"


def clip(text: str | None, limit: int) -> str:
    text = text or ""
    return text if len(text) <= limit else text[: limit - 1].rstrip() + ELLIPSIS


def fit_embed(embed: Embed) -> Embed:
    """Cut every part to its limit, then trim the description so the total fits."""
    title = clip(embed.title, EMBED_TITLE)
    fields = tuple(
        Field(clip(f.name, FIELD_NAME) or "-", clip(f.value, FIELD_VALUE) or "-", f.inline)
        for f in embed.fields[:EMBED_FIELDS]
    )
    footer = clip(embed.footer, FOOTER)
    used = len(title) + len(footer) + sum(len(f.name) + len(f.value) for f in fields)
    description = clip(embed.description, min(EMBED_DESCRIPTION, max(0, EMBED_TOTAL - used)))
    return replace(embed, title=title, description=description, fields=fields, footer=footer)


SENTENCE_ENDS = (". ", "? ", "! ", ".\n", "?\n", "!\n")


def field_chunks(text: str, limit: int = FIELD_VALUE, breaks: tuple[str, ...] = SENTENCE_ENDS) -> list[str]:
    """`text` in pieces of at most `limit` characters, each cut after the last of `breaks`
    in range, else at a space (a longer word is cut where it must be)."""
    pieces, rest = [], (text or "").strip()
    while len(rest) > limit:
        head = rest[:limit + 1]
        cut = max(head.rfind(end) + len(end.rstrip()) for end in breaks)
        cut = cut if cut > 0 else head.rfind(" ")
        cut = cut if cut > 0 else limit
        pieces.append(rest[:cut].rstrip())
        rest = rest[cut:].lstrip()
    return pieces + [rest] if rest else pieces


def embed_size(embed: Embed) -> int:
    return len(embed.title) + len(embed.description) + len(embed.footer) + sum(
        len(f.name) + len(f.value) for f in embed.fields
    )


def fit_buttons(buttons: tuple[Button, ...]) -> tuple[Button, ...]:
    """Clip labels, drop repeated custom_ids (Discord refuses them), and place buttons
    into at most 5 rows of 5 (overflow is dropped)."""
    placed: list[Button] = []
    per_row: dict[int, int] = {}
    seen: set[str] = set()
    for button in buttons:
        if button.custom_id in seen:
            continue
        seen.add(button.custom_id)
        row = min(button.row, ROWS - 1)
        while row < ROWS and per_row.get(row, 0) >= PER_ROW:
            row += 1
        if row >= ROWS:
            break
        per_row[row] = per_row.get(row, 0) + 1
        placed.append(replace(button, label=clip(button.label, BUTTON_LABEL) or "?", row=row))
    return tuple(placed)


def fit_modal(modal: Modal) -> Modal:
    inputs = tuple(
        replace(
            i,
            label=clip(i.label, INPUT_LABEL),
            max_length=min(i.max_length, INPUT_VALUE),
            placeholder=clip(i.placeholder, PLACEHOLDER),
            value=clip(i.value, min(i.max_length, INPUT_VALUE)),
        )
        for i in modal.inputs[:ROWS]
    )
    return replace(modal, title=clip(modal.title, MODAL_TITLE), inputs=inputs)


def fit_attachment(attachment: Attachment | None) -> Attachment | None:
    """The description clipped; a file over the upload limit is left out (the text still goes)."""
    if attachment is None or len(attachment.data) > ATTACHMENT_BYTES:
        return None
    return replace(attachment, description=clip(attachment.description, ATTACHMENT_DESCRIPTION))


def fit(reply: Reply) -> Reply:
    """A reply that Discord will accept, whatever the text inside it."""
    return replace(
        reply,
        content=clip(reply.content, CONTENT),
        embed=fit_embed(reply.embed) if reply.embed else None,
        buttons=fit_buttons(reply.buttons),
        modal=fit_modal(reply.modal) if reply.modal else None,
        attachment=fit_attachment(reply.attachment),
    )


def problems(reply: Reply) -> list[str]:
    """Every way `reply` breaks a limit (empty when it fits). Used by tests."""
    out = []
    if len(reply.content) > CONTENT:
        out.append("content")
    if reply.embed:
        e = reply.embed
        if len(e.title) > EMBED_TITLE or len(e.description) > EMBED_DESCRIPTION or len(e.footer) > FOOTER:
            out.append("embed part")
        if len(e.fields) > EMBED_FIELDS or any(len(f.name) > FIELD_NAME or len(f.value) > FIELD_VALUE for f in e.fields):
            out.append("embed fields")
        if any(not f.name or not f.value for f in e.fields):
            out.append("empty field")
        if embed_size(e) > EMBED_TOTAL:
            out.append("embed total")
    rows: dict[int, int] = {}
    ids = [b.custom_id for b in reply.buttons]
    for b in reply.buttons:
        rows[b.row] = rows.get(b.row, 0) + 1
        if len(b.custom_id) > CUSTOM_ID or len(b.label) > BUTTON_LABEL or not b.label:
            out.append(f"button {b.custom_id[:20]}")
    if len(set(ids)) != len(ids):
        out.append("duplicate custom_id")
    if any(r >= ROWS for r in rows) or any(n > PER_ROW for n in rows.values()):
        out.append("rows")
    if reply.attachment is not None:
        a = reply.attachment
        if len(a.description) > ATTACHMENT_DESCRIPTION or len(a.data) > ATTACHMENT_BYTES or not a.filename:
            out.append("attachment")
    if reply.modal:
        m = reply.modal
        if len(m.title) > MODAL_TITLE or len(m.custom_id) > CUSTOM_ID or not m.inputs:
            out.append("modal")
        for i in m.inputs:
            if len(i.label) > INPUT_LABEL or i.max_length > INPUT_VALUE or len(i.placeholder) > PLACEHOLDER:
                out.append("modal input")
    return out


__all__ = ["TextInput", "clip", "fit", "fit_embed", "problems"]
