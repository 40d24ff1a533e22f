"""The LLM judge: one schema-constrained call per answer, then every quote is
checked against the answer; a verdict whose quote is not there counts as missing."""

from __future__ import annotations

import hashlib
import json
from functools import lru_cache
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, create_model

from coach.grading.models import KeyPointVerdict, Verdicts
from coach.grading.prompt import STATIC_PREFIX, bite_context, fenced_answer, new_fence
from coach.grading.quotes import find_quote
from content import Bite

QUOTE_MAX_CHARS = 200


class PointJudgement(BaseModel):
    model_config = ConfigDict(extra="forbid")

    status: Literal["covered", "partial", "missing", "wrong"]
    quote: str = Field(max_length=QUOTE_MAX_CHARS)  # required: strict schemas want every field listed


@lru_cache(maxsize=8)
def verdict_schema(n_points: int) -> type[BaseModel]:
    """The response model for a bite with `n_points` key points (exactly that many entries)."""
    return create_model(
        f"LLMVerdicts{n_points}",
        __config__=ConfigDict(extra="forbid"),
        key_points=(list[PointJudgement], Field(min_length=n_points, max_length=n_points)),
        purpose=(bool, ...),
        purpose_quote=(str, Field(max_length=QUOTE_MAX_CHARS)),
        mechanism=(bool, ...),
        mechanism_quote=(str, Field(max_length=QUOTE_MAX_CHARS)),
        on_topic=(bool, ...),
        other_concept=(str, Field(max_length=QUOTE_MAX_CHARS)),
        red_flag=(Literal["no", "possible", "certain"], ...),
        red_flag_quote=(str, Field(max_length=QUOTE_MAX_CHARS)),
        injection=(bool, ...),
    )


def verify(raw: BaseModel, bite: Bite, answer: str) -> Verdicts:
    """Turn the model's raw verdict into checked verdicts: an unquotable claim (a point, the
    purpose, the red flag, the mechanism) does not count. The mechanism verdict zeroes an
    answer, so it is read in the answer's favour: explained when the model says so with a
    quote that is there, or when some point it credited is verified."""
    verdicts = []
    judged = list(raw.key_points)
    for index, point in enumerate(bite.key_points):
        judgement = judged[index] if index < len(judged) else None
        status, evidence = "missing", None
        if judgement is not None and judgement.status != "missing":
            evidence = find_quote(judgement.quote, answer)
            status = judgement.status if evidence else "missing"
        verdicts.append(KeyPointVerdict(point=point.point, kind=point.kind, status=status, evidence=evidence))
    flag_quoted = raw.red_flag != "no" and find_quote(raw.red_flag_quote, answer) is not None
    credited = any(v.status in ("covered", "partial") for v in verdicts)
    explained = raw.mechanism and (find_quote(raw.mechanism_quote, answer) is not None or credited)
    return Verdicts(
        key_points=verdicts,
        keyword_soup=not explained,
        off_topic=not raw.on_topic,
        red_flag=flag_quoted and raw.red_flag == "certain",
        red_flag_possible=flag_quoted and raw.red_flag == "possible",
        purpose=bool(raw.purpose) and find_quote(raw.purpose_quote, answer) is not None,
        injection=bool(raw.injection),
    )


class LLMJudge:
    """Asks the served model for per-key-point verdicts. Raises the client's LLMError on failure."""

    def __init__(self, client, *, max_tokens: int, layout_factory=None):
        from serving.prompt import PromptLayout

        self._client = client
        self._max_tokens = max_tokens
        self._layout = (layout_factory or PromptLayout)(STATIC_PREFIX)
        prompt_id = hashlib.sha256(STATIC_PREFIX.encode()).hexdigest()[:8]
        self.version = f"{getattr(client, 'model', 'llm')}:{prompt_id}"  # stored with each attempt
        # What qualification is keyed by: the instructions, the answer schema and the output cap
        # (a cap too small for the verdict is as disqualifying as a bad prompt).
        shape = [STATIC_PREFIX, verdict_schema(5).model_json_schema(), max_tokens]
        self.prompt_hash = hashlib.sha256(json.dumps(shape, sort_keys=True).encode()).hexdigest()[:16]

    @property
    def client(self):
        return self._client

    def messages(self, bite: Bite, answer: str) -> list[dict]:
        return self._layout.messages(bite_context(bite), fenced_answer(answer, new_fence(answer)))

    async def judge(self, bite: Bite, answer: str) -> Verdicts:
        schema = verdict_schema(len(bite.key_points))
        raw = await self._client.complete_json(
            self.messages(bite, answer), schema, max_tokens=self._max_tokens, temperature=0.0, routing_key=bite.id
        )
        return verify(raw, bite, answer)
