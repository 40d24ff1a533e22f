"""What Discord rejects with 400: the documented size limits on messages, embeds,
components and modals. Each check returns a list of problems (empty when valid)."""

from __future__ import annotations

CONTENT_MAX = 2000
EMBEDS_MAX = 10
EMBED_TITLE_MAX = 256
EMBED_DESCRIPTION_MAX = 4096
EMBED_FIELDS_MAX = 25
FIELD_NAME_MAX = 256
FIELD_VALUE_MAX = 1024
FOOTER_MAX = 2048
AUTHOR_MAX = 256
EMBED_TOTAL_MAX = 6000
ROWS_MAX = 5
BUTTONS_PER_ROW_MAX = 5
CUSTOM_ID_MAX = 100
BUTTON_LABEL_MAX = 80
MODAL_TITLE_MAX = 45
TEXT_INPUT_LABEL_MAX = 45
TEXT_INPUT_MAX = 4000
PLACEHOLDER_MAX = 100
SELECT_OPTIONS_MAX = 25
ATTACHMENTS_MAX = 10
ATTACHMENT_DESCRIPTION_MAX = 1024
ATTACHMENT_SIZE_MAX = 8 * 1024 * 1024  # what the fake's interactions announce (attachment_size_limit)


def _len(value) -> int:
    return len(value) if isinstance(value, str) else 0


def embed_problems(embed: dict, where: str) -> list[str]:
    problems = []
    title, description = embed.get("title"), embed.get("description")
    if _len(title) > EMBED_TITLE_MAX:
        problems.append(f"{where}.title longer than {EMBED_TITLE_MAX}")
    if _len(description) > EMBED_DESCRIPTION_MAX:
        problems.append(f"{where}.description longer than {EMBED_DESCRIPTION_MAX}")
    fields = embed.get("fields") or []
    if len(fields) > EMBED_FIELDS_MAX:
        problems.append(f"{where}.fields: more than {EMBED_FIELDS_MAX}")
    total = _len(title) + _len(description)
    for i, field in enumerate(fields):
        name, value = field.get("name"), field.get("value")
        if not name or not value:
            problems.append(f"{where}.fields[{i}]: name and value are required")
        if _len(name) > FIELD_NAME_MAX:
            problems.append(f"{where}.fields[{i}].name longer than {FIELD_NAME_MAX}")
        if _len(value) > FIELD_VALUE_MAX:
            problems.append(f"{where}.fields[{i}].value longer than {FIELD_VALUE_MAX}")
        total += _len(name) + _len(value)
    footer = (embed.get("footer") or {}).get("text")
    author = (embed.get("author") or {}).get("name")
    if _len(footer) > FOOTER_MAX:
        problems.append(f"{where}.footer longer than {FOOTER_MAX}")
    if _len(author) > AUTHOR_MAX:
        problems.append(f"{where}.author longer than {AUTHOR_MAX}")
    total += _len(footer) + _len(author)
    if total > EMBED_TOTAL_MAX:
        problems.append(f"{where}: {total} characters in total, more than {EMBED_TOTAL_MAX}")
    return problems


def _button_problems(item: dict, where: str, seen: set[str]) -> list[str]:
    problems = []
    custom_id = item.get("custom_id")
    if item.get("type") == 2 and item.get("style") not in (5, 6) and not custom_id:
        problems.append(f"{where}: a non-link button needs a custom_id")
    if custom_id is not None:
        if len(custom_id) > CUSTOM_ID_MAX:
            problems.append(f"{where}.custom_id longer than {CUSTOM_ID_MAX}")
        if custom_id in seen:
            problems.append(f"{where}.custom_id duplicated: {custom_id!r}")
        seen.add(custom_id)
    if _len(item.get("label")) > BUTTON_LABEL_MAX:
        problems.append(f"{where}.label longer than {BUTTON_LABEL_MAX}")
    if _len(item.get("placeholder")) > PLACEHOLDER_MAX:
        problems.append(f"{where}.placeholder longer than {PLACEHOLDER_MAX}")
    if len(item.get("options") or []) > SELECT_OPTIONS_MAX:
        problems.append(f"{where}.options: more than {SELECT_OPTIONS_MAX}")
    return problems


def components_problems(rows: list[dict]) -> list[str]:
    problems: list[str] = []
    if len(rows) > ROWS_MAX:
        problems.append(f"components: more than {ROWS_MAX} rows")
    seen: set[str] = set()
    for r, row in enumerate(rows):
        children = row.get("components") or []
        if row.get("type") != 1:
            problems.append(f"components[{r}]: top level must be an action row")
        if len(children) > BUTTONS_PER_ROW_MAX:
            problems.append(f"components[{r}]: more than {BUTTONS_PER_ROW_MAX} items")
        for c, item in enumerate(children):
            problems.extend(_button_problems(item, f"components[{r}][{c}]", seen))
    return problems


def attachment_problems(payload: dict, files: list) -> list[str]:
    """`files`: [(index, filename, bytes)] uploaded with the message."""
    problems = []
    listed = payload.get("attachments") or []
    if len(files) > ATTACHMENTS_MAX or len(listed) > ATTACHMENTS_MAX:
        problems.append(f"attachments: more than {ATTACHMENTS_MAX}")
    for index, name, data in files:
        if not name:
            problems.append(f"files[{index}]: no filename")
        if len(data) > ATTACHMENT_SIZE_MAX:
            problems.append(f"files[{index}]: larger than {ATTACHMENT_SIZE_MAX} bytes")
    for i, item in enumerate(listed):
        if _len(item.get("description")) > ATTACHMENT_DESCRIPTION_MAX:
            problems.append(f"attachments[{i}].description longer than {ATTACHMENT_DESCRIPTION_MAX}")
    return problems


def message_problems(payload: dict, files: list | None = None) -> list[str]:
    problems = attachment_problems(payload, files or [])
    if _len(payload.get("content")) > CONTENT_MAX:
        problems.append(f"content longer than {CONTENT_MAX}")
    embeds = payload.get("embeds") or []
    if len(embeds) > EMBEDS_MAX:
        problems.append(f"embeds: more than {EMBEDS_MAX}")
    total = 0
    for i, embed in enumerate(embeds):
        problems.extend(embed_problems(embed, f"embeds[{i}]"))
        total += sum(_len(embed.get(k)) for k in ("title", "description"))
        total += sum(_len(f.get("name")) + _len(f.get("value")) for f in embed.get("fields") or [])
    if total > EMBED_TOTAL_MAX:
        problems.append(f"embeds: {total} characters across embeds, more than {EMBED_TOTAL_MAX}")
    problems.extend(components_problems(payload.get("components") or []))
    return problems


def modal_problems(payload: dict) -> list[str]:
    problems = []
    if not payload.get("title") or _len(payload.get("title")) > MODAL_TITLE_MAX:
        problems.append(f"modal title missing or longer than {MODAL_TITLE_MAX}")
    custom_id = payload.get("custom_id") or ""
    if not custom_id or len(custom_id) > CUSTOM_ID_MAX:
        problems.append(f"modal custom_id missing or longer than {CUSTOM_ID_MAX}")
    rows = payload.get("components") or []
    if not rows or len(rows) > ROWS_MAX:
        problems.append(f"modal needs 1 to {ROWS_MAX} rows")
    for r, row in enumerate(rows):
        inputs = row.get("components") or ([row["component"]] if row.get("component") else [])
        if row.get("type") == 18 and _len(row.get("label")) > TEXT_INPUT_LABEL_MAX:
            problems.append(f"modal row {r}: label longer than {TEXT_INPUT_LABEL_MAX}")
        for item in inputs:
            if _len(item.get("label")) > TEXT_INPUT_LABEL_MAX:
                problems.append(f"modal row {r}: label longer than {TEXT_INPUT_LABEL_MAX}")
            if int(item.get("max_length") or 0) > TEXT_INPUT_MAX:
                problems.append(f"modal row {r}: max_length above {TEXT_INPUT_MAX}")
            if _len(item.get("value")) > TEXT_INPUT_MAX:
                problems.append(f"modal row {r}: value longer than {TEXT_INPUT_MAX}")
            if _len(item.get("placeholder")) > PLACEHOLDER_MAX:
                problems.append(f"modal row {r}: placeholder longer than {PLACEHOLDER_MAX}")
            if len(item.get("custom_id") or "") > CUSTOM_ID_MAX:
                problems.append(f"modal row {r}: custom_id longer than {CUSTOM_ID_MAX}")
    return problems
