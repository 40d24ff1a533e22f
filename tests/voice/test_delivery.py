"""Delivery figures from fixed word lists (pure functions: no audio, no model)."""

from __future__ import annotations

import pytest

from coach.voice.delivery import (
    FILLERS_OK_PER_MINUTE, LONG_PAUSE_SECONDS, PACE_FAST_WPM, PACE_SLOW_WPM, TimedWord, analyze, count_fillers,
    opens_with_core_point,
)


def timed(texts: list[str], *, start: float = 0.5, step: float = 0.4, gaps: dict[int, float] | None = None):
    """Words `step` seconds apart (each lasting 0.3 s); `gaps[i]` adds silence before word i."""
    words, t = [], start
    for i, text in enumerate(texts):
        t += (gaps or {}).get(i, 0.0)
        words.append(TimedWord(t, t + 0.3, text))
        t += step
    return words


PLAIN = ("the cache keeps keys and values for every layer so each step only computes the newest token "
         "and reads the rest which trades memory for compute").split()


def test_pace_fillers_and_pauses_from_a_fixed_word_list():
    # 70 words 0.4 s apart, each 0.3 s long: 69*0.4 + 0.3 = 27.9 s of words, plus the two gaps.
    texts = (PLAIN * 3)[:70]
    texts[0], texts[10], texts[20], texts[30] = "Um,", "uh", "basically", "like,"
    words = timed(texts, gaps={40: 2.5, 50: 1.9})  # one long pause, one just under the cut-off
    d = analyze(words, duration_s=31.0)
    assert d.words == 70
    speaking = 27.9 + 2.5 + 1.9
    assert d.speaking_s == pytest.approx(speaking, abs=0.1)
    assert d.wpm == pytest.approx(70 / (speaking / 60), abs=1)
    assert d.fillers == 4 and d.filler_counts == {"basically": 1, "like": 1, "um/uh": 2}
    assert d.fillers_per_min == pytest.approx(4 / (speaking / 60), abs=0.1)
    assert d.long_pauses == 1 and d.longest_pause_s == pytest.approx(2.5 + 0.1, abs=0.05)
    assert d.duration_s == 31.0 and d.target_s == 60
    assert d.fillers_per_min > FILLERS_OK_PER_MINUTE
    assert d.notes[0].startswith("7 fillers a minute") and "pause" in d.notes[0]
    assert len(d.notes) <= 2


def test_a_good_pace_is_said_so():
    texts = (PLAIN * 6)[:140]
    d = analyze(timed(texts, step=60 / 140), duration_s=61.0)  # 140 words in about a minute
    assert PACE_SLOW_WPM <= d.wpm <= PACE_FAST_WPM
    assert d.fillers == 0 and d.long_pauses == 0
    assert d.notes == (f"{d.wpm:.0f} words a minute is a good pace, and the fillers were few.",)


@pytest.mark.parametrize("step, word", [(0.25, "fast"), (0.75, "slow")])
def test_fast_and_slow_pace(step, word):
    d = analyze(timed((PLAIN * 4)[:100], step=step), duration_s=100 * step + 1)
    assert f"is {word}" in d.notes[0]
    assert (d.wpm > PACE_FAST_WPM) if word == "fast" else (d.wpm < PACE_SLOW_WPM)


def test_long_and_short_answers():
    long_answer = analyze(timed((PLAIN * 12)[:300], step=0.4), duration_s=125)
    assert long_answer.speaking_s > 90 and any("is long" in n for n in long_answer.notes)
    short = analyze(timed(PLAIN[:30], step=0.4), duration_s=14)
    assert short.speaking_s < 30 and any("is short" in n for n in short.notes)


def test_pause_threshold_is_inclusive():
    d = analyze(timed(PLAIN[:10], gaps={5: LONG_PAUSE_SECONDS - 0.1 + 0.0}), duration_s=8)  # gap = 2.0 s exactly
    assert d.long_pauses == 1 and d.longest_pause_s == pytest.approx(2.0)


def test_no_words_gives_zero_figures_and_a_note():
    d = analyze([TimedWord(0.0, 0.2, " ...")], duration_s=3.0)
    assert (d.words, d.wpm, d.fillers, d.long_pauses) == (0, 0.0, 0, 0)
    assert d.notes and "couldn't hear" in d.notes[0]


@pytest.mark.parametrize("text, expected", [
    ("Um, so the cache is, like, basically where keys go.", {"um/uh": 1, "like": 1, "basically": 1}),
    ("Uhh, you know, it sort of works.", {"um/uh": 1, "you know": 1, "sort of": 1}),
    ("It looks like a cache and works like memoization.", {}),  # "like" as a verb or preposition
    ("Things like attention are cached. It is like a lookup.", {}),
    ("You know that the cache grows. Do you know why?", {}),  # "know" as a verb
    ("It is a sort of cache, what kind of model uses it?", {}),  # "sort of"/"kind of" naming a kind
    ("Like, it reads the rest. So like every step is cheap.", {"like": 2}),
    ("Hmm, erm, I mean, the cost is memory.", {"um/uh": 2, "I mean": 1}),
])
def test_filler_words(text, expected):
    assert dict(count_fillers(" " + w for w in text.split())) == expected


def test_opens_with_a_core_point():
    transcript = "The cache stores keys and values of earlier tokens. Then each step only computes one token."
    assert opens_with_core_point(transcript, ["stores keys and values of earlier tokens"])
    assert not opens_with_core_point(transcript, ["each step only computes one token"])
    assert not opens_with_core_point(transcript, [])


def test_figures_hold_numbers_only():
    d = analyze(timed(["Um,", "the", "cache", "stores", "keys"]), duration_s=3)
    figures = d.figures()
    assert set(figures) == {"duration_s", "speaking_s", "words", "wpm", "fillers", "fillers_per_min", "long_pauses",
                            "longest_pause_s", "opens_with_core_point"}
    assert all(v is None or isinstance(v, (int, float)) for v in figures.values())
