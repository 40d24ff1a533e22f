"""Cheap text detectors both graders share: an answer that tries to instruct the
grader (injection) and an answer that lists terms without explaining (keyword soup).

They run on every answer whichever judge is used, so a model that is fooled by an
injection cannot turn it into a grade.
"""

from __future__ import annotations

import base64
import binascii
import codecs
import re
import unicodedata
from dataclasses import dataclass

# A few look-alike letters that survive NFKC (Cyrillic and Greek) mapped to Latin.
_HOMOGLYPHS = str.maketrans(
    {"а": "a", "е": "e", "о": "o", "р": "p", "с": "c", "у": "y", "х": "x", "і": "i", "ј": "j",
     "ѕ": "s", "ԁ": "d", "ο": "o", "α": "a", "ε": "e", "ι": "i", "ν": "v", "κ": "k", "τ": "t"}
)
_LEET = str.maketrans({"0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "@": "a", "$": "s"})

_WORDS = re.compile(r"[a-z0-9]+")


def normalize(text: str) -> str:
    """NFKC, case-folded, look-alike letters mapped, and invisible format characters (zero-width
    spaces and joiners, which split "give" into "g\u200bi\u200bv\u200be") dropped."""
    text = "".join(ch for ch in unicodedata.normalize("NFKC", text) if unicodedata.category(ch) != "Cf")
    return text.casefold().translate(_HOMOGLYPHS)


_ADDRESS_GRADER = (
    r"\b(ignore|disregard|forget|override|bypass|skip|overrule)\b(?:\s+\w+){0,4}\s+"
    r"(instructions?|rules?|prompts?|rubrics?|guidelines|directions|criteria|messages?)\b",
    r"\b(previous|prior|above|earlier|preceding|original|new|updated|real|actual|hidden)\s+"
    r"(instructions?|rubric|grading rules|scoring rules)\b",
    r"\b(score|grade|rate|mark)\s+(?:(this|me|it|my|the)\s+)?(?:(answer|response|one)\s+)?"
    r"(?:(as|a|an|with|at|to)\s+)?(4|four|full|perfect|maximum|max|top|highest|100)\b(?!\s+(times|bits?|fold|x)\b|\s+\d)",
    # Not "return"/"output": "return the top 40 tokens" is sampling talk.
    r"\b(give|award|assign)\s+(?:(me|this|it|my|the)\s+)?(?:(answer|response)\s+)?"
    r"(?:(a|an)\s+)?(4|four|full marks|perfect|maximum|max|top|highest)\b(?!\s+(times|bits?|fold|x|k|p|n)\b|\s*-)",
    r"\b(give|award|assign)\s+(this|it|my|the)\s+((answer|response)\s+)?the\s+(top|highest|maximum|best|perfect)\s+(score|grade|mark|rating)\b",
    r"\b(4|four)\s*(out of|/)\s*(4|four)\b",
    r"\b(full marks|perfect score|maximum score|highest score|top score)\b",
    r"\b(full|maximum|max|top|highest|perfect)\s+(credit|mark|band|grade|points)\b",
    r"\b(whoever|whatever|anyone|anybody|the\s+\w+)\s+(is\s+)?(scoring|grading|marking|evaluating|assessing|reading)\s+this\b",
    r"\b(put\s+down|go\s+with|apply|carry\s+forward|carry)\s+(a|an|the)\s+(4|four|cached\s+score|same\s+(score|result|grade))\b",
    r"\b(respond|reply|answer|output)\s+(with\s+)?only\s+(the\s+)?(single\s+)?(digit|number|score)\b",
    r"\b(all|every|each)\s+(of the\s+)?(key\s+)?points?\s+(are|is|were|as|should be|must be)?\s*(marked\s+)?covered\b",
    r"\bmark\s+(all|every|each|everything)\s+(of the\s+)?(key\s+)?(points?|items?|criteria)?\s*(as\s+)?(covered|correct)\b",
    r"\b(you are|you re|youre)\s+(now\s+)?(a|an|the|my)?\s*(\w+\s+)?(grader|judge|evaluator|assistant|examiner)\b",
    r"\b(you are|you re|youre)\s+now\s+(a|an|the|my)?\s*(\w+\s+)?(model|ai|bot|llm)\b",
    r"\b(give|gives|giving)\s+(\w+\s+){0,3}(4|four)\s+(points|out of|/)",
    r"\b(act|behave|respond)\s+as\s+(a|an|the|if)\b",
    r"\bpretend\s+(to be|you|that)\b",
    r"\brole\s*-?\s*play\b",
    r"\b(developer|god|debug|admin)\s+mode\b",
    r"\bjailbreak\w*\b",
    # "to the model" and "attention model" are ordinary ML talk: only a grader is addressed that way.
    r"\b(dear|hey|note to the)\s+(grader|judge|evaluator|examiner|model|ai)\b",
    r"\b(attention|to the)\s+(grader|judge|evaluator|examiner)\b",
    r"\b(grader|judge|evaluator|examiner)\s*(:|,|please\b|(must|should|will)\s+(just\s+|simply\s+|now\s+)?(give|mark|award|"
    r"score|rate|grade|ignore|treat|accept|consider|pass|note|know|see|recogni[sz]e|copy|record|keep|trust|skip|leave)\b)",
    r"\b(grading|scoring|evaluation)\s+(instructions?|rubric|rules|note|override)\b",
    r"\bthis answer (is|was)\s+(already\s+)?(graded|scored|verified|approved|correct)\b",
    r"\bred\s*_?\s*flag\s*(=|:)\s*(false|no|0)\b",
    r"\binjection\s*(=|:)\s*(false|no|0)\b",
    r"\b(system|assistant)\s+(override|prompt override)\b",  # not "system message": prompt-design talk
    r"\bend of (the\s+)?(answer|user input|data|fence)\b",
    r"\bnew task\b",
    # Notes addressed to whoever scores the answer, and what they ask for.
    r"\b(note|notes|message|instructions?|memo)\s+(to|for)\s+(the\s+)?(\w+\s+){0,2}"
    r"(grader|evaluator|judge|examiner|scorer|reviewer|marker|grading system|ai)\b",
    r"\b(grader|evaluator|judge|examiner|scorer|marker|grading|system|reviewer)\s+(note|notice|instruction|override)\b",
    r"\bmark\s+(this|the|my)\s+(\w+\s+){0,2}(answer|response|submission)\s+as\s+(\w+\s+)?"
    r"(correct|complete|perfect|passing|excellent)\b",
    r"\bset\s+(the\s+)?(score|grade|rating|mark)\s+(to|at|as)\b",
    r"\b(record|give|assign|award|enter)\s+(it|this|them|the candidate)?\s*(the\s+|a\s+)?"
    r"(highest|top|maximum|max|full|best|perfect)\s+(possible\s+)?(grade|score|marks?|rating)\b",
    r"\b(do not|don t|dont|never)\s+(deduct|penali[sz]e|subtract|dock)\b",
    r"\bpre\s*(validated|reviewed|approved|graded|scored|verified)\b",
    r"\b(every|all|each)\s+(\w+\s+)?(criteri(on|a)|rubric\s+points?|rubric\s+items?)\s+(as\s+|were\s+|was\s+|is\s+|are\s+)?"
    r"(met|covered|satisfied|passed)\b",
    r"\b(rubric|grading)\s+(points?|criteria|service|items?)\b",
    # Asking for a grade, or for leniency, in so many words.
    r"\b(this|my|the)\s+(answer|response|submission)\s+(deserves|merits|warrants|earns|should\s+(get|receive|be\s+given))\s+"
    r"(a\s+|the\s+)?(4|four|full|perfect|top|maximum|max|highest|high|excellent|passing)\b",
    r"\b(please|kindly|just)\s+(be\s+(lenient|generous|kind)|go\s+easy|grade\s+(it\s+)?(generously|leniently|kindly))\b",
    r"\b(lenient|generous)\s+(grader|grading|examiner|marking|scoring|evaluator)\b",
    r"\b(rate|grade|score|mark)\s+(it|this|me|my\s+answer)\s+(generously|leniently|highly|kindly)\b",
    r"\b(as|you\s+are)\s+(an?\s+)?(ai|language\s+model|llm|automated)\s+(grader|evaluator|judge|scorer|assessing|evaluating|grading)\b",
    r"\b(your|the|all)\s+(previous\s+|prior\s+|earlier\s+)?(instructions?|rubric|guidelines)\s+(is|are|were|was)\s+"
    r"(outdated|superseded|void|cancelled|canceled|replaced|obsolete|no\s+longer)\b",
    # Telling whoever tallies the result how to treat this answer.
    r"\b(this|my|the)\s+(answer|response|submission|transcript)\s+(should|must|ought\s+to|needs\s+to|is\s+to)\s+be\s+"
    r"(marked|scored|graded|rated|recorded|counted|given|passed|accepted|ranked)\b",
    r"\b(whoever|whatever|anyone|anybody|the\s+\w+)\s+(is\s+)?(compiling|tallying|recording|collating|processing|"
    r"totting|adding)\s+(up\s+)?(the\s+)?(scores?|grades?|marks?|results?|ratings?)\b",
    r"\b(marked|scored|graded|rated|placed|put|ranked)\s+(at|in)\s+the\s+top\s+(of\s+the\s+)?(scale|range|band|rubric)\b",
    r"\b(checked|verified|validated|assessed)\s+against\s+the\s+(full\s+|whole\s+|complete\s+)?"
    r"(rubric|marking\s+scheme|answer\s+key|grading\s+criteria)\b",
    r"\bcovers?\s+(every|each|all)\s+(the\s+)?(expected|required)\s+(points?|items?|criteri(on|a))\b",
    r"\bno\s+(further|additional|more)\s+(review|checking|grading|evaluation|scrutiny)\s+(is\s+)?(needed|required|necessary)\b",
    # A grade named as a number the answer should get ("put this down as a four", "under a
    # four", "gave it a 4"): a bare "a four" ending a clause is a grade, not "a four-bit model".
    r"\b(as|below|under|above|than|gives?|gave|given|get|gets|got|returns?|is|be|was|were)\s+(me\s+|it\s+|this\s+)?"
    r"(a|an)\s+(4|four|perfect|top)\s*(score|grade|mark)?\s*($|[.,!?;:]|\s+(and|so|then|or|i|anything|for|here|on|from)\b)",
    r"\b(expected|correct|right)\s+(output|score|grade|result|mark)\s+(for\s+this\s+(response|answer)\s+)?(is|should\s+be)\s+"
    r"(a\s+)?(4|four|full|perfect|pass)\b",
    r"\b(grader|judge|scorer|scoring\s+model|evaluator|model)\s+(returns?|outputs?|gives?|scores?|rates?)\s+(me\s+|it\s+|this\s+)?"
    r"(a\s+)?(4|four|full|perfect|top)\b",
    r"\b(graders|judges|evaluators|examiners|reviewers|markers)\s+(all\s+)?(gave|give|scored|rated|marked|graded)\b",
    r"\b(score|grade|mark|rating)\s+should\s+(reflect|match|be)\b",
    r"\b(grade|score|mark|rate)\s+(it|this|me|my\s+answer)\s+(at|in)\s+the\s+top\b",
    r"\b(when|while|as)\s+you\s+(do|are\s+doing)\s+the\s+(scoring|grading|marking)\b",
    r"\b(rubric|checklist)\s+you\s+(were|have\s+been|got)\s+(handed|given|told)\b",
    r"\b(calibration|synthetic\s+pass|test)\s+(item|case)\b.{0,80}\b(4|four|pass|score|grade)\b",
)
# The same request in other languages a candidate might switch to (NFKC-folded, lower case).
_OTHER_LANGUAGES = (
    r"\b(evaluador|calificador|puntuaci[oó]n\s+m[aá]xima|nota\s+m[aá]xima|calificaci[oó]n\s+m[aá]xima)\b",
    r"\b([ée]valuateur|correcteur|note\s+maximale|note\s+parfaite|points?\s+maximum)\b",
    r"\b(bewerter|pr[üu]fer|h[öo]chstpunktzahl|bestnote|volle\s+punktzahl)\b",
    r"\b(valutatore|punteggio\s+massimo|voto\s+massimo|avaliador|pontua[cç][aã]o\s+m[aá]xima|nota\s+m[aá]xima)\b",
    r"(评分|满分|打分|最高分|採点|満点|채점|만점)",
)
_STRUCTURAL = (
    r'"\s*(score|status|red_?flag|injection|key_?points|verdicts?|evidence|grade)\s*"\s*:',
    r"\b(score|grade|rating|verdict)\s*[:=]\s*(\d|four|full|perfect|pass|a\b)",  # "score: 4", "grade=A"
    r"^\s*(system|assistant|grader|judge)\s*:",
    r"<\|?\s*(im_start|im_end|system|endoftext|eot_id|start_header_id)\s*\|?>",
    r"\[/?(inst|sys)\]",
    r"</?\s*(system|instructions?|rubric|answer|fence)\s*>",
    r"^\s*#{1,4}\s*(rubric|instructions?|system|grading)",
)
# Letters only: the haystack has digits read as letters, so "giveme4" would match "give me a".
_SQUASHED = (
    "ignorepreviousinstructions", "ignoreallpreviousinstructions", "ignoreallinstructions",
    "ignoreyourinstructions", "disregardpreviousinstructions", "ignoretheabove", "ignoreabove",
    "ignoretherubric", "fullmarks", "perfectscore",
    "allkeypointscovered", "youarenowthegrader", "developermode",
)
_ADDRESS_RE = [re.compile(p) for p in _ADDRESS_GRADER]
_OTHER_LANGUAGE_RE = [re.compile(p) for p in _OTHER_LANGUAGES]
# Spaced-out letters and digits ("s c o r e  t h i s  4"): matched with every non-alphanumeric removed.
_SQUASHED_WITH_DIGITS = ("scorethis4", "gradethis4", "scorethisasa4", "scorethisanswerasafour", "4outof4",
                         "fouroutoffour", "givethis4", "giveme4", "markthisas4", "scorethisanswerasa4")
_BASE64 = re.compile(r"[A-Za-z0-9+/]{20,}={0,2}")
_STRUCTURAL_RE = [re.compile(p, re.MULTILINE) for p in _STRUCTURAL]


def _decoded_base64(text: str) -> str:
    """Readable text hidden as base64 (nobody says base64 out loud in an answer)."""
    found = []
    for blob in _BASE64.findall(text):
        try:
            decoded = base64.b64decode(blob + "=" * (-len(blob) % 4), validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError, ValueError):
            continue
        if decoded.isprintable() and sum(ch.isalpha() for ch in decoded) > len(decoded) / 2:
            found.append(decoded)
    return " ".join(found)


def injection_reasons(text: str) -> list[str]:
    """The patterns an answer matches that try to instruct the grader; empty if none. The
    answer is also read backwards and in ROT13: instructions hidden that way are still
    instructions, and honest prose read so matches nothing."""
    hidden = _decoded_base64(text)
    if hidden:
        return ["base64 text: " + reason for reason in injection_reasons(hidden)] or ["base64-encoded text"]
    reasons = _plain_reasons(text)
    for label, reading in (("reversed", text[::-1]), ("rot13", codecs.encode(text, "rot13"))):
        reasons += [f"{label} text: {reason}" for reason in _plain_reasons(reading)]
    return reasons


def _plain_reasons(text: str) -> list[str]:
    norm = normalize(text)
    spaced = " ".join(_WORDS.findall(norm))
    deleeted = " ".join(_WORDS.findall(norm.translate(_LEET)))
    squashed = "".join(ch for ch in norm.translate(_LEET) if ch.isalpha())
    reasons = [rx.pattern for rx in _ADDRESS_RE if rx.search(spaced) or rx.search(deleeted)]
    reasons += [rx.pattern for rx in _STRUCTURAL_RE if rx.search(norm)]
    reasons += [s for s in _SQUASHED if s.translate(_LEET) in squashed]
    alnum = "".join(ch for ch in norm if ch.isalnum())
    reasons += [s for s in _SQUASHED_WITH_DIGITS if s in alnum]
    reasons += [rx.pattern for rx in _OTHER_LANGUAGE_RE if rx.search(norm)]
    return reasons


def looks_like_injection(text: str) -> bool:
    return bool(injection_reasons(text))


# Function words: an explanation needs them ("because", "so", "the ... of ..."),
# a list of buzzwords does not.
_FUNCTION_WORDS = frozenset(
    """a an the of to in on at by for from with without into onto over under about as than then
    and or but nor so yet because since while when whenever where which who whom whose that this
    these those it its it's they them their there here is are was were be been being am do does did
    done has have had having can could will would shall should may might must not no never only
    each every all any some more most less few many much very too also just still even if unless
    until before after once per how why what i we you he she our your my me us one ones instead
    rather both either neither same other another such out up down off again now""".split()
)


@dataclass(frozen=True)
class SoupThresholds:
    min_words: int = 6
    max_function_ratio: float = 0.12  # below this share of function words: a list of terms
    max_fragment_words: float = 3.0  # mean words per comma/line fragment...
    fragment_function_ratio: float = 0.22  # ...together with few function words


def keyword_soup(text: str, thresholds: SoupThresholds = SoupThresholds()) -> bool:
    words = re.findall(r"[a-z0-9']+", normalize(text))
    if len(words) < thresholds.min_words:
        return False
    ratio = sum(w in _FUNCTION_WORDS for w in words) / len(words)
    if ratio < thresholds.max_function_ratio:
        return True
    fragments = [f for f in re.split(r"[,;\n|/•·]+|\s-\s", normalize(text)) if re.search(r"\w", f)]
    if len(fragments) >= 5:
        mean_len = sum(len(re.findall(r"[a-z0-9']+", f)) for f in fragments) / len(fragments)
        return mean_len <= thresholds.max_fragment_words and ratio < thresholds.fragment_function_ratio
    return False
