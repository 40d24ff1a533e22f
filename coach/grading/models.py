"""The grader's result objects. `to_json()` returns exactly the CLI contract's shapes."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from coach.voice.delivery import Delivery

Status = Literal["covered", "partial", "missing", "wrong"]
GraderName = Literal["llm", "combined", "trained", "embedding", "followup"]  # followup: coach.grading.followup_reader
InputKind = Literal["text", "voice"]
# The grading scale an attempt was scored on. 1: coverage of equal key points (before
# 2026-12); 2: anchored on the interviewer (core and depth points, purpose, sure red flags).
SCALE_VERSION = 2


class KeyPointVerdict(BaseModel):
    model_config = ConfigDict(frozen=True)

    point: str
    status: Status
    evidence: str | None = None  # a quote from the answer, or None
    kind: Literal["core", "depth"] = "core"


class Suggestion(BaseModel):
    model_config = ConfigDict(frozen=True)

    bite_id: str
    title: str
    score: float


class Grade(BaseModel):
    model_config = ConfigDict(frozen=True)

    bite_id: str
    title: str
    score: int = Field(ge=0, le=4)
    key_points: list[KeyPointVerdict]
    red_flag: bool
    injection: bool
    grader: GraderName
    feedback: str
    model_answer: str
    follow_up: str
    truncated: bool
    # Additive fields: the mistake may be there but is not certain (no cap); the answer said
    # what the thing is for; which rubric and grader produced the score.
    red_flag_possible: bool = False
    purpose: bool = False
    rubric_version: str = ""
    grader_version: str = ""
    # How the answer came in. A spoken answer is graded on its transcript (as the member
    # confirmed it) by the same pipeline; `delivery` holds the figures of how it was said.
    input: InputKind = "text"
    transcript: str | None = None
    delivery: Delivery | None = None
    # The answer explains no mechanism (a list of terms: 0), or explains a neighbouring concept
    # instead of this one (0; `explains` names the bite it seems to be about, when one is found).
    keyword_soup: bool = False
    off_topic: bool = False
    explains: Suggestion | None = None
    # Not part of the contract: when the bite was found by retrieval, or the answer explains
    # another bite, the bites offered as "grade as another bite".
    alternatives: tuple[Suggestion, ...] = Field((), exclude=True)

    def to_json(self) -> dict:
        return {
            "bite_id": self.bite_id,
            "title": self.title,
            "score": self.score,
            "key_points": [
                {"point": kp.point, "status": kp.status, "evidence": kp.evidence, "kind": kp.kind}
                for kp in self.key_points
            ],
            "red_flag": self.red_flag,
            "injection": self.injection,
            "grader": self.grader,
            "feedback": self.feedback,
            "model_answer": self.model_answer,
            "follow_up": self.follow_up,
            "truncated": self.truncated,
            "red_flag_possible": self.red_flag_possible,
            "purpose": self.purpose,
            "scale_version": SCALE_VERSION,
            "rubric_version": self.rubric_version,
            "grader_version": self.grader_version,
            "input": self.input,
            "transcript": self.transcript,
            "delivery": self.delivery.to_json() if self.delivery is not None else None,
            "buzzword_list": self.keyword_soup,
            "other_concept": self.off_topic,
            "explains": self.explains.model_dump() if self.explains is not None else None,
        }


class PointGrade(BaseModel):
    """A follow-up answer judged against one key point (an interview's turn)."""

    model_config = ConfigDict(frozen=True)

    bite_id: str
    point: int  # index into the bite's key points
    status: Status
    evidence: str | None = None
    red_flag: bool = False
    injection: bool = False
    keyword_soup: bool = False
    grader: GraderName = "embedding"
    truncated: bool = False


class OffTopic(BaseModel):
    """The answer is about no bite: not graded; the user is asked which bite they meant."""

    model_config = ConfigDict(frozen=True)

    suggestions: list[Suggestion]
    message: str = "That doesn't seem to be about any bite I know. Which one did you mean?"

    def to_json(self) -> dict:
        return {"off_topic": True, "suggestions": [s.model_dump() for s in self.suggestions]}


class GradeError(BaseModel):
    """Input that cannot be graded (empty answer, unknown bite): a polite message, never an exception."""

    model_config = ConfigDict(frozen=True)

    error: Literal["empty_answer", "unknown_bite"]
    message: str

    def to_json(self) -> dict:
        return {"error": self.error, "message": self.message}


GradeResult = Grade | OffTopic | GradeError


class Verdicts(BaseModel):
    """What a judge (LLM or embedding) decided, before the score is computed in code."""

    model_config = ConfigDict(frozen=True)

    key_points: list[KeyPointVerdict]
    red_flag: bool  # near-certain: caps the score at 1
    injection: bool
    keyword_soup: bool = False  # explains no mechanism: a list of terms (0)
    off_topic: bool = False  # explains a neighbouring concept, not this one (0)
    red_flag_possible: bool = False  # shown as "this may be ...", never caps
    purpose: bool = False  # the answer states what the thing is for
