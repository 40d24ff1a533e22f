"""Quotes as evidence: a verdict counts only with a span that is really in the answer."""

from __future__ import annotations

import re

_MIN_QUOTE_CHARS = 4  # shorter "quotes" (a word, a letter) prove nothing
_EDGE_PUNCTUATION = " \t\n\"'`“”‘’«».,;:!?…-"


def find_quote(quote: str | None, answer: str) -> str | None:
    """The span of `answer` that `quote` reproduces (case and spacing aside), or None."""
    if not quote:
        return None
    quote = quote.strip(_EDGE_PUNCTUATION).replace("...", " ").replace("…", " ")
    tokens = quote.split()
    if sum(ch.isalnum() for ch in quote) < _MIN_QUOTE_CHARS or not tokens:
        return None
    pattern = r"\s+".join(re.escape(t) for t in tokens)
    match = re.search(pattern, answer, flags=re.IGNORECASE)
    return match.group(0) if match else None
