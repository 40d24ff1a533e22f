"""Text helpers: sentence splitting and overlapping windows for long answers.

Spoken answers often have no punctuation at all, so a "sentence" can be
thousands of words; windows therefore fall back to word chunks.
"""

from __future__ import annotations

import re
from typing import Callable

_SENTENCE_END = re.compile(r"(?<=[.!?…])[\"')\]]*\s+|\n+")
_SPACE = re.compile(r"\s+")


def normalize(text: str) -> str:
    """Collapse runs of whitespace; strip the ends."""
    return _SPACE.sub(" ", text or "").strip()


_FILLERS = re.compile(r"\b(?:u+m+|u+h+|e+r+m+|h+m+|a+h+)\b[,.]?\s*", re.IGNORECASE)
# Letter names that are not also everyday words ("you", "see", "why" are left alone).
_LETTER_NAMES = {
    "ay": "a", "bee": "b", "cee": "c", "dee": "d", "eff": "f", "gee": "g", "aitch": "h", "jay": "j",
    "kay": "k", "el": "l", "ell": "l", "em": "m", "en": "n", "pee": "p", "ar": "r", "ess": "s",
    "tee": "t", "vee": "v", "ex": "x", "zee": "z", "zed": "z",
}
_SPELLED = re.compile(
    r"\b(?:(?:%s)\b[\s-]*){2,}" % "|".join(sorted(_LETTER_NAMES, key=len, reverse=True)), re.IGNORECASE
)
# Single letters spoken one by one: "v l l m", "g p u" (not "a" or "i" alone).
_LETTERS = re.compile(r"\b[b-hj-z](?:[\s.-]+[a-z]\b){1,5}", re.IGNORECASE)


def _join_letters(match: re.Match) -> str:
    return "".join(re.findall(r"[a-z]", match.group(0), re.IGNORECASE)) + " "


def _join_letter_names(match: re.Match) -> str:
    return "".join(_LETTER_NAMES[name.lower()] for name in re.findall(r"[a-z]+", match.group(0), re.IGNORECASE)) + " "


def spoken_to_written(text: str) -> str:
    """Undo what speech-to-text does to technical words: drop hesitation fillers ("um",
    "uh") and join spelled-out acronyms ("kay vee cache" -> "kv cache", "v l l m" -> "vllm")."""
    text = _FILLERS.sub("", text or "")
    text = _SPELLED.sub(_join_letter_names, text)
    return normalize(_LETTERS.sub(_join_letters, text))


def split_sentences(text: str) -> list[str]:
    """Split on sentence-ending punctuation and line breaks; drop empty pieces."""
    pieces = _SENTENCE_END.split(text or "")
    return [normalize(p) for p in pieces if p and normalize(p)]


TokenCounter = Callable[[list[str]], list[int]]


def count_words(texts: list[str]) -> list[int]:
    return [len(t.split()) for t in texts]


def _word_chunks(sentence: str, max_tokens: int, count: TokenCounter) -> list[tuple[str, int]]:
    """Cut one over-long sentence into consecutive word runs of at most `max_tokens`.

    Word-piece counts add up across whitespace-separated words, so each word is
    counted once (in one batch call) and the runs are summed.
    """
    words = sentence.split()
    chunks, current, used = [], [], 0
    for word, n in zip(words, count(words)):
        if current and used + n > max_tokens:
            chunks.append((" ".join(current), used))
            current, used = [], 0
        current.append(word)
        used += n
    if current:
        chunks.append((" ".join(current), used))
    return chunks


def _units(text: str, unit_tokens: int, count: TokenCounter) -> list[tuple[str, int]]:
    sentences = split_sentences(text)
    units = []
    for sentence, n in zip(sentences, count(sentences)):
        if n <= unit_tokens:
            units.append((sentence, n))
        else:
            units.extend(_word_chunks(sentence, unit_tokens, count))
    return units


def windows(
    text: str,
    max_tokens: int,
    count_tokens: TokenCounter | None = None,
    max_windows: int | None = None,
) -> list[str]:
    """Overlapping windows of whole sentences, each at most `max_tokens` long.

    Each window starts about half-way into the previous one, so a point that
    straddles a boundary lands whole in some window. Text that fits is one
    window. `count_tokens` maps a list of texts to their lengths (default: word
    counts; the embedder passes its tokenizer). `max_windows` bounds the work for very long texts by keeping
    evenly spaced windows.
    """
    count = count_tokens or count_words
    clean = normalize(text)
    if not clean:
        return []
    if count([clean])[0] <= max_tokens:
        return [clean]
    # Units of at most half a window, so every window holds at least two and overlaps by half.
    units = _units(text, max(1, max_tokens // 2), count)
    result: list[str] = []
    start = 0
    while start < len(units):
        end, used = start, 0
        while end < len(units) and (end == start or used + units[end][1] <= max_tokens):
            used += units[end][1]
            end += 1
        result.append(" ".join(u for u, _ in units[start:end]))
        if end >= len(units):
            break
        # Advance to the unit where the first half of this window ends.
        half, step, acc = used / 2, 0, 0
        while start + step < end - 1 and acc + units[start + step][1] <= half:
            acc += units[start + step][1]
            step += 1
        start += max(1, step)
    if max_windows and len(result) > max_windows:
        stride = (len(result) - 1) / (max_windows - 1) if max_windows > 1 else 0
        result = [result[round(i * stride)] for i in range(max_windows)]
    return result
