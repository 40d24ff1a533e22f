"""Delivery feedback on a spoken answer: pure functions of the transcript's timed words.

How long the member spoke against the 60-second target, words per minute, filler words per
minute, pauses of two seconds or more, and one or two short coaching lines. Nothing here reads
audio or knows the speech model: the input is (start, end, text) per word, as any
speech-to-text with word timestamps gives.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Iterable, NamedTuple

from pydantic import BaseModel, ConfigDict

# --- thresholds, named once -----------------------------------------------------------------------

# The product's promise: a 60-second explainer, answered in about a minute.
TARGET_SECONDS = 60
SHORT_SECONDS = 30  # under half the target: there was room for the why
LONG_SECONDS = 90  # half again over: an interviewer starts to lose the thread

# Common public-speaking guidance puts conversational English at about 120-160 words per minute
# (the National Center for Voice and Speech gives ~150 wpm for conversation; presentation
# coaches advise 120-160). Outside the band listeners either wait or fall behind.
PACE_SLOW_WPM = 120
PACE_FAST_WPM = 160

# A few fillers a minute sound natural; past that they are what a listener remembers. Coaching
# guidance (e.g. Toastmasters' "ah counter") aims for well under one every 20 seconds.
FILLERS_OK_PER_MINUTE = 3.0

# A silence of two seconds or more mid-answer reads as "lost", where a shorter one reads as a
# deliberate pause (the issue's and most coaching guides' cut-off).
LONG_PAUSE_SECONDS = 2.0

# Speech recognition drops some fillers (Whisper was trained on transcripts that mostly leave
# them out). bench.speech measures how many tiny.en keeps on recordings with known fillers:
# 45 of 54 (83%) with the shipped prompt (docs/voice.md). The count shown is "at least".
MEASURED_FILLER_RECALL = 0.83
FILLERS_NOTE = (f"at least: speech recognition keeps about {MEASURED_FILLER_RECALL:.0%} of fillers, "
                "so the real count may be a little higher")


class TimedWord(NamedTuple):
    start: float
    end: float
    text: str


class Delivery(BaseModel):
    """The figures of one spoken answer (stored with the attempt) and its coaching lines."""

    model_config = ConfigDict(frozen=True)

    duration_s: float  # the recording
    speaking_s: float  # first word to last word
    words: int
    wpm: float
    fillers: int
    fillers_per_min: float
    filler_counts: dict[str, int] = {}
    long_pauses: int
    longest_pause_s: float
    target_s: int = TARGET_SECONDS
    # Whether the first sentence makes a core point (filled in after grading; None: not known).
    opens_with_core_point: bool | None = None
    notes: tuple[str, ...] = ()

    def to_json(self) -> dict:
        return {
            "duration_s": self.duration_s, "speaking_s": self.speaking_s, "words": self.words, "wpm": self.wpm,
            "fillers": self.fillers, "fillers_per_min": self.fillers_per_min, "filler_counts": dict(self.filler_counts),
            "fillers_note": FILLERS_NOTE,
            "long_pauses": self.long_pauses, "longest_pause_s": self.longest_pause_s, "target_s": self.target_s,
            "opens_with_core_point": self.opens_with_core_point, "notes": list(self.notes),
        }

    def figures(self) -> dict:
        """What the store keeps: numbers only, never words of the answer."""
        return {
            "duration_s": self.duration_s, "speaking_s": self.speaking_s, "words": self.words, "wpm": self.wpm,
            "fillers": self.fillers, "fillers_per_min": self.fillers_per_min, "long_pauses": self.long_pauses,
            "longest_pause_s": self.longest_pause_s, "opens_with_core_point": self.opens_with_core_point,
        }


# --- words and fillers ------------------------------------------------------------------------

_TOKEN = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
_HESITATIONS = re.compile(r"^(?:u+m+|u+h+|h+m+|e+r+m*|a+h+|m+h*m+)$")  # um, umm, uh, uhh, hmm, er, erm, ah, mm
# "like" is a real word after these ("looks like", "something like", "is like a cache").
_LIKE_IS_A_WORD_AFTER = frozenset(
    "is was are were be been 's looks look looked feel feels felt seem seems seemed sound sounds act acts "
    "work works worked behave behaves behaved "
    "would 'd i you we they don't didn't do does something anything nothing things thing stuff just much "
    "more less exactly".split()
)
# "sort of"/"kind of" name a kind after these ("a sort of cache", "what kind of model").
_KIND_IS_A_WORD_AFTER = frozenset("a an the this that what which some any one every each same another".split())
# "you know" is a real verb before these ("you know that...", "do you know how...").
_KNOW_IS_A_VERB_BEFORE = frozenset("what how that why when where if whether which who the".split())


def _tokens(text: str) -> list[str]:
    return _TOKEN.findall(text.lower().replace("’", "'"))


def count_fillers(words: Iterable[str]) -> Counter:
    """Filler words in Whisper-style word texts (" Um,", " like", " know."). Punctuation helps: a
    "like" fenced by a comma or a sentence edge is a filler even after "is" ("it's, like, ...")."""
    toks: list[tuple[str, bool, bool]] = []  # (token, fenced before, fenced after)
    edge = True  # the answer's start counts as a sentence edge
    for text in words:
        stripped = text.strip()
        parts = _tokens(stripped)
        for i, tok in enumerate(parts):
            before = i == 0 and (edge or stripped.startswith(","))
            after = i == len(parts) - 1 and stripped.endswith((",", ".", "?", "!", "...", "\u2026"))
            toks.append((tok, before, after))
        if parts:
            edge = stripped.endswith((",", ".", "?", "!", "...", "\u2026"))
    found: Counter = Counter()
    for i, (tok, fenced_before, fenced_after) in enumerate(toks):
        prev = toks[i - 1][0] if i else ""
        before_prev = toks[i - 2][0] if i >= 2 else ""
        nxt = toks[i + 1][0] if i + 1 < len(toks) else ""
        if _HESITATIONS.match(tok):
            found["um/uh"] += 1
        elif tok == "like":
            verbal = prev in _LIKE_IS_A_WORD_AFTER or prev.endswith("'s")
            if fenced_before or fenced_after or not verbal:
                found["like"] += 1
        elif tok == "basically":
            found["basically"] += 1
        elif tok == "know" and prev == "you" and nxt not in _KNOW_IS_A_VERB_BEFORE:
            if before_prev not in ("do", "don't", "did", "didn't", "if", "you'd", "would"):
                found["you know"] += 1
        elif tok == "of" and prev in ("sort", "kind") and before_prev not in _KIND_IS_A_WORD_AFTER:
            found[f"{prev} of"] += 1
        elif tok == "mean" and prev == "i" and fenced_after:
            found["I mean"] += 1
    return found


# --- the analysis -----------------------------------------------------------------------------


def analyze(words: Iterable, duration_s: float) -> Delivery:
    """Figures and coaching lines from timed words (anything with .start, .end, .text)."""
    timed = [TimedWord(float(w.start), float(w.end), str(w.text)) for w in words]
    timed = [w for w in timed if _tokens(w.text)]  # punctuation-only pieces are not words
    if not timed:
        return Delivery(duration_s=round(duration_s, 1), speaking_s=0.0, words=0, wpm=0.0, fillers=0,
                        fillers_per_min=0.0, long_pauses=0, longest_pause_s=0.0,
                        notes=("I couldn't hear enough words to judge the delivery.",))
    speaking = max(0.0, timed[-1].end - timed[0].start)
    n_words = sum(len(_tokens(w.text)) for w in timed)
    minutes = speaking / 60 if speaking > 0 else 0.0
    fillers = count_fillers(w.text for w in timed)
    n_fillers = sum(fillers.values())
    gaps = [b.start - a.end for a, b in zip(timed, timed[1:])]
    long_gaps = [g for g in gaps if g >= LONG_PAUSE_SECONDS]
    delivery = Delivery(
        duration_s=round(duration_s, 1),
        speaking_s=round(speaking, 1),
        words=n_words,
        wpm=round(n_words / minutes, 0) if minutes else 0.0,
        fillers=n_fillers,
        fillers_per_min=round(n_fillers / minutes, 1) if minutes else 0.0,
        filler_counts=dict(sorted(fillers.items())),
        long_pauses=len(long_gaps),
        longest_pause_s=round(max(gaps, default=0.0), 1),
    )
    return delivery.model_copy(update={"notes": coaching_lines(delivery)})


def coaching_lines(d: Delivery, limit: int = 2) -> tuple[str, ...]:
    """At most `limit` short lines, the most useful first: fillers, pace, pauses, length."""
    lines: list[str] = []
    if d.fillers_per_min > FILLERS_OK_PER_MINUTE:
        lines.append(f"{d.fillers_per_min:.0f} fillers a minute ({_top_fillers(d)}): pause silently instead.")
    if d.words >= 20:  # too few words for a pace to mean much
        if d.wpm > PACE_FAST_WPM:
            lines.append(f"{d.wpm:.0f} words a minute is fast: slow down so each point lands "
                         f"({PACE_SLOW_WPM}-{PACE_FAST_WPM} is conversational).")
        elif d.wpm < PACE_SLOW_WPM:
            lines.append(f"{d.wpm:.0f} words a minute is slow: aim for {PACE_SLOW_WPM}-{PACE_FAST_WPM}.")
    if d.long_pauses:
        times = "once" if d.long_pauses == 1 else f"{d.long_pauses} times"
        lines.append(f"You stopped for {LONG_PAUSE_SECONDS:.0f} s or more {times}: bridge with a signpost "
                     "(\"the second reason is...\") rather than going quiet.")
    if d.speaking_s > LONG_SECONDS:
        lines.append(f"{d.speaking_s:.0f} s is long: aim for about {d.target_s} s and lead with the core point.")
    elif 0 < d.speaking_s < SHORT_SECONDS:
        lines.append(f"{d.speaking_s:.0f} s is short: you have time to add why it matters.")
    if not lines and d.words >= 20:
        lines.append(f"{d.wpm:.0f} words a minute is a good pace, and the fillers were few.")
    return tuple(lines[:limit])


def _top_fillers(d: Delivery) -> str:
    ranked = sorted(d.filler_counts.items(), key=lambda kv: (-kv[1], kv[0]))
    return ", ".join(f'"{name}" x{n}' for name, n in ranked[:2])


def opens_with_core_point(transcript: str, core_evidence: Iterable[str]) -> bool:
    """Whether the first sentence carries the evidence of a core key point the grader credited."""
    first = re.split(r"(?<=[.?!])\s+", transcript.strip(), maxsplit=1)[0]
    first_tokens = set(_tokens(first))
    for quote in core_evidence:
        quoted = _tokens(quote or "")
        if quoted and sum(t in first_tokens for t in quoted) / len(quoted) >= 0.6:
            return True
    return False
