"""Semantic checks over a loaded catalog: what pydantic alone cannot see.

Every problem names the file and the item so an author can fix it at once.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import yaml

from content.loader import Catalog, Problem, load_collecting
from content.schema import Question, Track

# Length rules, each chosen so the text is read whole in one screen (one message or card;
# the bot owns the platform's own limits, bot/render/limits.py, and tests that shipped content fits them).
QUESTION_MAX_CHARS = 1000  # a question's stem and lettered options together
LONG_TEXT_MAX_CHARS = 3000  # a bite's explainer or model answer, a question's explanation: about a minute's read
TITLE_MAX_CHARS = 80  # a bite's title: one line, short enough to name a button
# Track-level multiple-choice hygiene.
POSITION_SHARE_MIN, POSITION_SHARE_MAX = 0.15, 0.35
LONGEST_CORRECT_MAX = 0.40
LETTERS = "ABCD"


def render_question(question: Question, options: list[str] | None = None) -> str:
    """The question as one text: stem, then lettered options (what `QUESTION_MAX_CHARS` measures)."""
    shown = options if options is not None else list(question.options)
    lines = [question.stem, ""] + [f"**{LETTERS[i]}.** {text}" for i, text in enumerate(shown)]
    return "\n".join(lines)


def _question_problems(q: Question, file: str) -> list[Problem]:
    out: list[Problem] = []

    def add(message: str) -> None:
        out.append(Problem(file, q.id, message))

    if len(q.options) != 4:
        add(f"needs exactly 4 options, has {len(q.options)}")
    stripped = [o.strip() for o in q.options]
    if any(not o for o in stripped):
        add("an option is empty")
    duplicates = [o for o, n in Counter(o.casefold() for o in stripped if o).items() if n > 1]
    if duplicates:
        add(f"duplicate option: {duplicates[0]!r}")
    if not 0 <= q.answer < len(q.options):
        add(f"answer {q.answer} is out of range 0..{len(q.options) - 1}")
    else:
        wrong = set(range(len(q.options))) - {q.answer}
        notes = set(q.distractor_notes)
        for index in sorted(wrong - notes):
            add(f"distractor_notes has no entry for wrong option {index}")
        for index in sorted(notes - wrong):
            add(f"distractor_notes has an entry for {index}, which is not a wrong option")
        for index, note in q.distractor_notes.items():
            if not note.strip():
                add(f"distractor_notes[{index}] is empty")
    rendered = render_question(q)
    if len(rendered) > QUESTION_MAX_CHARS:
        add(f"the question with its options is {len(rendered)} characters; keep it to {QUESTION_MAX_CHARS}")
    if len(q.explanation) > LONG_TEXT_MAX_CHARS:
        add(f"explanation is {len(q.explanation)} characters; keep it to {LONG_TEXT_MAX_CHARS}")
    return out


def _bite_problems(catalog: Catalog) -> list[Problem]:
    out: list[Problem] = []
    for bite in catalog.bites.values():
        file = catalog.source_files.get(bite.id, "?")
        if Path(file).stem != bite.id:
            out.append(Problem(file, bite.id, f"file name should be {bite.id}.yaml"))
        for field in ("explainer", "model_answer"):
            if len(getattr(bite, field)) > LONG_TEXT_MAX_CHARS:
                out.append(Problem(file, bite.id, f"{field} is {len(getattr(bite, field))} characters; "
                                                  f"keep it to {LONG_TEXT_MAX_CHARS}"))
        if len(bite.title) > TITLE_MAX_CHARS:
            out.append(Problem(file, bite.id, f"title is {len(bite.title)} characters; keep it to {TITLE_MAX_CHARS}"))
        for related in bite.related:
            if related not in catalog.bites:
                out.append(Problem(file, bite.id, f"related bite {related!r} does not exist"))
            elif related == bite.id:
                out.append(Problem(file, bite.id, "a bite cannot be related to itself"))
    for q in catalog.questions.values():
        if q.bite_id not in catalog.bites:
            out.append(Problem(catalog.source_files.get(q.id, "?"), q.id, f"bite_id {q.bite_id!r} does not exist"))
    return out


def track_balance_problems(track: Track, where: str) -> list[Problem]:
    """Known flaws of multiple-choice tests: a predictable key position, and 'pick the longest'."""
    questions = [q for q in track.questions if len(q.options) == 4 and 0 <= q.answer < 4]
    if not questions:
        return []
    out: list[Problem] = []
    positions = Counter(q.answer for q in questions)
    for index, letter in enumerate(LETTERS):
        share = positions.get(index, 0) / len(questions)
        if not POSITION_SHARE_MIN <= share <= POSITION_SHARE_MAX:
            out.append(
                Problem(where, track.id, f"correct option is {letter} in {share:.0%} of questions "
                        f"(keep each letter between {POSITION_SHARE_MIN:.0%} and {POSITION_SHARE_MAX:.0%})")
            )
    longest = sum(1 for q in questions if len(q.options[q.answer]) > max(
        len(o) for i, o in enumerate(q.options) if i != q.answer))
    share = longest / len(questions)
    if share > LONGEST_CORRECT_MAX:
        out.append(Problem(where, track.id, f"correct option is the longest in {share:.0%} of questions "
                                            f"(at most {LONGEST_CORRECT_MAX:.0%})"))
    return out


def merged_list_items(file: Path) -> list[Problem]:
    """A list item indented one level too deep becomes part of the item above it in YAML:
    two key points silently load as one. Find plain scalars that swallowed a `- ` line."""
    out: list[Problem] = []
    try:
        root = yaml.compose(file.read_text(encoding="utf-8"))
    except (yaml.YAMLError, OSError, UnicodeDecodeError):
        return out  # the loader already reported it
    stack = [root] if root is not None else []
    while stack:
        node = stack.pop()
        if isinstance(node, yaml.MappingNode):
            stack.extend(value for _, value in node.value)
        elif isinstance(node, yaml.SequenceNode):
            for item in node.value:
                if isinstance(item, yaml.ScalarNode) and item.style is None and re.search(
                    r"\s- \S", item.value) and item.start_mark.line != item.end_mark.line:
                    out.append(Problem(str(file), f"line {item.start_mark.line + 1}",
                                       "a list item swallowed the next '- ' line (check its indentation)"))
                else:
                    stack.append(item)
    return out


def check_catalog(catalog: Catalog, root: Path) -> list[Problem]:
    problems = _bite_problems(catalog)
    for file in sorted(set(catalog.source_files.values())):
        problems.extend(merged_list_items(Path(file)))
    for q in catalog.questions.values():
        problems.extend(_question_problems(q, catalog.source_files.get(q.id, "?")))
    for track in catalog.tracks.values():
        problems.extend(track_balance_problems(track, str(root / track.id / "track.yaml")))
    return problems


def check(root: Path | None = None) -> tuple[Catalog, list[Problem]]:
    """Load every track and return (catalog, all problems: schema and semantic)."""
    from content.loader import TRACKS_DIR

    root = Path(root) if root else TRACKS_DIR
    catalog, problems = load_collecting(root)
    return catalog, problems + check_catalog(catalog, root)
