"""The grader's result objects. `to_json()` returns exactly the CLI contract's shapes."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Status = Literal["covered", "partial", "missing", "wrong"]
GraderName = Literal["llm", "embedding"]


class KeyPointVerdict(BaseModel):
    model_config = ConfigDict(frozen=True)

    point: str
    status: Status
    evidence: str | None = None  # a quote from the answer, or None


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
    # Not part of the contract: whether the keyword-soup detector fired (explains a 0).
    keyword_soup: bool = Field(False, exclude=True)

    def to_json(self) -> dict:
        return {
            "bite_id": self.bite_id,
            "title": self.title,
            "score": self.score,
            "key_points": [
                {"point": kp.point, "status": kp.status, "evidence": kp.evidence} for kp in self.key_points
            ],
            "red_flag": self.red_flag,
            "injection": self.injection,
            "grader": self.grader,
            "feedback": self.feedback,
            "model_answer": self.model_answer,
            "follow_up": self.follow_up,
            "truncated": self.truncated,
        }


class Suggestion(BaseModel):
    model_config = ConfigDict(frozen=True)

    bite_id: str
    title: str
    score: float


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
    red_flag: bool
    injection: bool
    keyword_soup: bool = False
