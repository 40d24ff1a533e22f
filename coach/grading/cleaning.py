"""Clean a user's answer before anyone reads it: drop control and invisible
characters (they hide instructions and break quote matching), cap the length, and
otherwise keep the text verbatim so quotes from it can be verified."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

# Unicode categories removed outright: controls, format characters (zero-width
# space/joiners, bidi overrides, the "tag" block used for hidden ASCII), surrogates,
# private use and unassigned code points.
_DROPPED_CATEGORIES = {"Cc", "Cf", "Cs", "Co", "Cn"}
_KEPT_CONTROLS = {"\n", "\t"}
# Variation selectors are combining marks (Mn) but render as nothing.
_VARIATION_SELECTORS = set(range(0xFE00, 0xFE10)) | set(range(0xE0100, 0xE01F0))
_MAX_COMBINING_RUN = 2  # more stacked marks than this is "zalgo" noise, not language
_BLANK_LINES = re.compile(r"\n[ \t]*\n(?:[ \t]*\n)+")
# Tag characters spell ASCII that nothing shows (coach.grading.injection decodes them); a flag
# emoji's few (after U+1F3F4, "gbsct") are not text.
TAG_CHARACTERS = "\U000E0020-\U000E007E"
_TAG_RUN = re.compile(f"(?<![\U0001F3F4{TAG_CHARACTERS}])[{TAG_CHARACTERS}]{{4,}}")


@dataclass(frozen=True)
class CleanAnswer:
    text: str
    truncated: bool
    # What cleaning dropped that spells text: the invisible tag-character runs, kept verbatim for
    # the injection net (coach.grading.injection decodes them). Nobody types them by accident.
    hidden: str = ""

    @property
    def for_net(self) -> str:
        """The text the injection net reads: the visible answer and what was hidden in it."""
        return f"{self.text}\n{self.hidden}" if self.hidden else self.text

    @property
    def empty(self) -> bool:
        return not any(ch.isalnum() for ch in self.text)


def _clean_char(ch: str) -> str:
    if ch in _KEPT_CONTROLS:
        return ch
    if ch == "\r" or ch in "\u2028\u2029\x85":
        return "\n"
    category = unicodedata.category(ch)
    if category in _DROPPED_CATEGORIES or ord(ch) in _VARIATION_SELECTORS:
        return ""
    if category == "Zs":  # no-break and other exotic spaces -> a plain space
        return " "
    return ch


def strip_invisible(text: str) -> str:
    out: list[str] = []
    combining_run = 0
    for ch in text.replace("\r\n", "\n"):
        ch = _clean_char(ch)
        if not ch:
            continue
        if unicodedata.combining(ch):
            combining_run += 1
            if combining_run > _MAX_COMBINING_RUN:
                continue
        else:
            combining_run = 0
        out.append(ch)
    return _BLANK_LINES.sub("\n\n", "".join(out))


def cap_length(text: str, max_chars: int) -> tuple[str, bool]:
    """Cut to at most `max_chars`, at a word boundary when one is near the end."""
    if len(text) <= max_chars:
        return text, False
    cut = text[:max_chars]
    boundary = cut.rfind(" ")
    if boundary >= max_chars * 0.9:
        cut = cut[:boundary]
    return cut.rstrip(), True


def clean_answer(raw: str | None, max_chars: int) -> CleanAnswer:
    if max_chars < 1:
        raise ValueError("max_chars must be positive")
    text = strip_invisible(raw or "").strip()
    text, truncated = cap_length(text, max_chars)
    hidden = " ".join(_TAG_RUN.findall(raw or ""))[:max_chars]
    return CleanAnswer(text=text, truncated=truncated, hidden=hidden)
