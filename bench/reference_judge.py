"""The reference judge: a capable model (a helper, not shipped) reads the exact prompts
the shipped LLM judge sends (`LLMJudge.messages`) and answers with the same JSON schema;
its verdicts are replayed through the shipped `verify` and score function.

`bench.grading --write-prompts OUT` writes one line per answer:
    {"id", "bite_id", "messages", "schema"}
and the judge writes one line per answer: {"id", "verdict": <the JSON object>}.
"""

from __future__ import annotations

import json
from pathlib import Path

from coach.grading.cleaning import clean_answer
from coach.grading.llm_judge import QUOTE_MAX_CHARS, LLMJudge, verdict_schema, verify
from content import default_catalog

VERSION = "reference-judge"
MAX_CHARS = 4000  # the shipped answer cap (Settings.answer_max_chars)


class _NoClient:
    model = VERSION


def write_prompts(rows: list[dict], out: Path) -> None:
    catalog = default_catalog()
    judge = LLMJudge(_NoClient(), max_tokens=0)
    with open(out, "w", encoding="utf-8") as handle:
        for row in rows:
            bite = catalog.bites[row["bite_id"]]
            handle.write(json.dumps({
                "id": row["id"], "bite_id": bite.id,
                "messages": judge.messages(bite, clean_answer(row["answer"], MAX_CHARS).text),
                "schema": verdict_schema(len(bite.key_points)).model_json_schema(),
            }, ensure_ascii=False) + "\n")


class ReplayJudge:
    """Stands where LLMJudge stands in the pipeline; answers from the recorded verdicts."""

    version = VERSION

    def __init__(self, by_answer: dict[str, dict]):
        self._by_answer = by_answer

    @classmethod
    def from_file(cls, path: str | Path, rows: list[dict]) -> "ReplayJudge":
        recorded = {}
        with open(path, encoding="utf-8") as handle:
            for line in handle:
                if line.strip():
                    item = json.loads(line)
                    recorded[item["id"]] = item["verdict"]
        missing = [r["id"] for r in rows if r["id"] not in recorded]
        if missing:
            raise SystemExit(f"{path}: no verdict for {len(missing)} answers (first: {missing[0]})")
        # The pipeline hands the judge the cleaned answer, as the prompts were built from it.
        return cls({clean_answer(r["answer"], MAX_CHARS).text: recorded[r["id"]] for r in rows})

    async def judge(self, bite, answer: str):
        raw = verdict_schema(len(bite.key_points)).model_validate(within_schema(self._by_answer[answer]))
        return verify(raw, bite, answer)


def within_schema(verdict: dict) -> dict:
    """A quote longer than the schema allows cut at its limit, as schema-constrained decoding
    would have ended it (the shipped judge cannot emit a longer one); `verify` then checks
    the cut quote against the answer like any other."""
    def clip(text):
        return text[:QUOTE_MAX_CHARS] if isinstance(text, str) else text

    points = [dict(p, quote=clip(p.get("quote"))) if isinstance(p, dict) else p for p in verdict.get("key_points", [])]
    # Verdicts recorded before the prompt asked for the mechanism and the topic (reference judge
    # files of earlier sets) read as "explained, on topic": what the earlier prompt assumed.
    verdict = {"mechanism": True, "mechanism_quote": "", "on_topic": True, "other_concept": "", **verdict}
    return dict(verdict, key_points=points, purpose_quote=clip(verdict.get("purpose_quote")),
                mechanism_quote=clip(verdict.get("mechanism_quote")), red_flag_quote=clip(verdict.get("red_flag_quote")))
