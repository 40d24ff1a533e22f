"""The texts the embedding judge weighs an answer against when it looks for the red flag.

The judge scores the red flag as a contrast, word piece by word piece
(coach.grading.token_match), in each sentence (or adjacent pair) of the answer: how well
it matches the bite's mistaken texts (the claims in its red-flag description and the ways
candidates say the mistake) minus how well it matches the bite's correct texts (key
points, correct phrasings, model-answer sentences); the answer's contrast is its top
sentence's. A sentence that names the mistake's subject while saying the right thing
matches both and scores low; one that states the mistake matches only the first. The two
decision levels (sure, possible) are fitted on dev by `coach grader fit`.
"""

from __future__ import annotations

import re
from typing import Callable

from content import Bite

_LEAD_VERB = re.compile(
    r"^(says|claims|states|thinks|believes|assumes|describes|treats|expects|confuses|suggests|"
    r"argues|implies|insists)\s+(that\s+)?",
    re.IGNORECASE,
)
# The red flag text often ends with the correct view ("..., rather than X"): not the mistake.
_CORRECTION_TAIL = re.compile(r",?\s+(rather than|instead of|ignoring|when in fact|whereas)\b.*$", re.IGNORECASE)
_ALTERNATIVE = re.compile(
    r",?\s+or\s+(?:that\s+|thinks\s+|says\s+|claims\s+|treats\s+|describes\s+)+", re.IGNORECASE
)


def red_flag_claims(red_flag: str) -> list[str]:
    """The mistaken claims inside a red-flag description, phrased as claims."""
    text = _CORRECTION_TAIL.sub("", red_flag.strip().rstrip("."))
    parts = [_LEAD_VERB.sub("", part).strip(" ,.") for part in _ALTERNATIVE.split(_LEAD_VERB.sub("", text))]
    claims = [p for p in parts if len(p.split()) >= 3]
    whole = _LEAD_VERB.sub("", text).strip(" ,.")
    return list(dict.fromkeys([whole, *claims]))


def red_flag_texts(bite: Bite) -> list[str]:
    """The mistake: the claims in the red-flag description, then the ways candidates say it."""
    return list(dict.fromkeys([*red_flag_claims(bite.red_flag), *bite.red_flag_phrasings]))


MIN_CORRECT_WORDS = 6  # "That's the KV cache." matches every answer that names the topic


def correct_texts(bite: Bite, split_sentences: Callable[[str], list[str]]) -> list[str]:
    """The right idea: key points, correct phrasings and the model answer's sentences that
    say something (a sentence that only names the topic would outweigh any mistake)."""
    texts = [*bite.point_texts, *bite.phrasings, *split_sentences(bite.model_answer)]
    return list(dict.fromkeys(t for t in texts if len(t.split()) >= MIN_CORRECT_WORDS))
