"""Replaying a reference judge's verdicts: a quote longer than the schema allows is cut where
schema-constrained decoding would have ended it, then checked against the answer as usual."""

from bench.reference_judge import within_schema
from coach.grading.llm_judge import QUOTE_MAX_CHARS, verdict_schema


def test_an_overlong_quote_is_cut_to_the_schema_limit_and_validates():
    long = "x" * (QUOTE_MAX_CHARS + 50)
    verdict = {"key_points": [{"status": "covered", "quote": long}], "purpose": True, "purpose_quote": "short",
               "red_flag": "no", "red_flag_quote": long, "injection": False}
    clipped = within_schema(verdict)
    parsed = verdict_schema(1).model_validate(clipped)
    assert parsed.key_points[0].quote == long[:QUOTE_MAX_CHARS] and parsed.red_flag_quote == long[:QUOTE_MAX_CHARS]
    assert parsed.purpose_quote == "short"
