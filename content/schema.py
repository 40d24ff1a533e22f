"""The content model: tracks, bites and questions, validated with pydantic."""

from __future__ import annotations

import re

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

SLUG = r"^[a-z0-9]+(?:-[a-z0-9]+)*$"
CORE_POINTS_MIN, CORE_POINTS_MAX = 1, 4


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", str_strip_whitespace=True)


class Question(_Frozen):
    id: str = Field(pattern=SLUG)
    bite_id: str = Field("", description="Filled by the loader from the bite file it sits in.")
    stem: str = Field(min_length=10)
    options: tuple[str, ...]
    answer: int
    explanation: str = Field(min_length=10)
    # Keyed by option index (0-3): the misconception each wrong option stands for.
    distractor_notes: dict[int, str]


class KeyPoint(_Frozen):
    """One atomic claim of the rubric, with what the grade says when it is missed."""

    point: str = Field(min_length=10, max_length=220)
    # core: what any hire-level answer makes; depth: what a strong senior adds.
    kind: Literal["core", "depth"]
    # Shown when the point is missed or loose: how to make it land (not a restatement).
    coaching: str = Field(min_length=10, max_length=240)
    # The interviewer's next question when this point is missing.
    follow_up: str = Field(min_length=10, max_length=240)


class Bite(_Frozen):
    id: str = Field(pattern=SLUG)
    track: str = Field("", description="Filled by the loader from the track folder.")
    title: str = Field(min_length=3, max_length=100)
    prompt: str = Field(min_length=10)
    tags: tuple[str, ...] = ()
    summary: str = Field(min_length=10, max_length=300)
    explainer: str = Field(min_length=100)
    tests: str = Field(min_length=10)
    # What the thing is for, as an answer that states only the purpose would say it.
    purpose: str = Field(min_length=10, max_length=240)
    key_points: tuple[KeyPoint, ...] = Field(min_length=3, max_length=7)
    red_flag: str = Field(min_length=10)
    # The red flag as candidates actually say it, one mistaken claim per line: the
    # embedding grader matches answer sentences against these.
    red_flag_phrasings: tuple[str, ...] = ()
    model_answer: str = Field(min_length=50)
    # How candidates talk about this topic out loud (words, slang, speech-to-text
    # spellings): extra texts retrieval indexes for the bite.
    phrasings: tuple[str, ...] = ()
    # Answers a candidate might give about this bite, right, partial or wrong, in
    # spoken style. Retrieval indexes them; nothing shows them to users, and the
    # grader never treats them as correct (some are deliberately wrong).
    sample_answers: tuple[str, ...] = ()
    related: tuple[str, ...] = ()

    @field_validator("red_flag_phrasings", "phrasings", "sample_answers")
    @classmethod
    def _lines_not_blank(cls, lines: tuple[str, ...]) -> tuple[str, ...]:
        if any(not re.search(r"\w", line) for line in lines):
            raise ValueError("an entry is empty")
        return lines

    @model_validator(mode="after")
    def _core_points(self) -> "Bite":
        core = sum(p.kind == "core" for p in self.key_points)
        if not CORE_POINTS_MIN <= core <= CORE_POINTS_MAX:
            raise ValueError(f"key_points: {core} marked core; a bite needs {CORE_POINTS_MIN}-{CORE_POINTS_MAX}")
        return self

    @property
    def point_texts(self) -> tuple[str, ...]:
        return tuple(p.point for p in self.key_points)


# Words the commands use in place of a track (`/quiz review`, a mixed session, `/settings track:any`).
RESERVED_TRACK_IDS = ("review", "mix", "any")


class Track(_Frozen):
    id: str = Field(pattern=SLUG)
    title: str = Field(min_length=3)
    description: str = ""
    bites: tuple[Bite, ...] = ()
    questions: tuple[Question, ...] = ()

    @field_validator("id")
    @classmethod
    def _not_reserved(cls, track_id: str) -> str:
        if track_id in RESERVED_TRACK_IDS:
            raise ValueError(f"{track_id!r} is a word the commands use; choose another track id")
        return track_id
