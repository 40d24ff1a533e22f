"""Small fixture catalogs and a settable clock for the engine tests."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

import yaml

from content import Catalog, load_catalog

START = datetime(2026, 3, 2, 12, 0, tzinfo=timezone.utc)  # a Monday


class Clock:
    """An injectable clock: call it for now; move it with `advance`."""

    def __init__(self, start: datetime = START):
        self.moment = start

    def __call__(self) -> datetime:
        return self.moment

    def advance(self, **delta) -> datetime:
        self.moment += timedelta(**delta)
        return self.moment

    def set(self, moment: datetime) -> None:
        self.moment = moment


def bite_doc(bite_id: str, n_questions: int) -> dict:
    title = bite_id.replace("-", " ").title()
    return {
        "id": bite_id,
        "title": title,
        "prompt": f"Walk me through {title.lower()} and why it matters.",
        "tags": ["test"],
        "summary": f"A short summary of {title.lower()} for tests.",
        "explainer": f"{title} is a made-up topic used by the engine tests. " * 4,
        "tests": "Whether the candidate can explain the idea plainly.",
        "purpose": f"It makes {title.lower()} useful in production.",
        "key_points": [
            {"point": f"The {n} point about {title.lower()}.", "kind": kind,
             "coaching": f"Say the {n} point plainly.", "follow_up": f"What is the {n} point?"}
            for n, kind in (("first", "core"), ("second", "core"), ("third", "depth"))
        ],
        "red_flag": "Confusing this with something else entirely.",
        "model_answer": f"In an interview I would say {title.lower()} works like this, step by step, with one example.",
        "questions": [
            {
                "id": f"{bite_id}-q{i + 1}",
                "stem": f"Which statement about {title.lower()} (variant {i + 1}) is right?",
                "options": [f"option {letter} of {bite_id} q{i + 1}" for letter in "ABCD"],
                "answer": i % 4,
                "explanation": f"Option {'ABCD'[i % 4]} is right because the test says so.",
                "distractor_notes": {j: "a tempting mistake" for j in range(4) if j != i % 4},
            }
            for i in range(n_questions)
        ],
    }


def write_track(root: Path, track_id: str, bites: dict[str, int]) -> None:
    """`bites` maps bite id -> number of questions."""
    folder = root / track_id
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "track.yaml").write_text(yaml.safe_dump({"id": track_id, "title": f"Track {track_id}"}))
    for bite_id, n in bites.items():
        (folder / f"{bite_id}.yaml").write_text(yaml.safe_dump(bite_doc(bite_id, n), sort_keys=False))


def make_catalog(root: Path, tracks: dict[str, dict[str, int]] | None = None) -> Catalog:
    tracks = tracks or {"demo": {f"bite-{c}": 2 for c in "abcdef"}}  # 6 bites x 2 questions
    for track_id, bites in tracks.items():
        write_track(root, track_id, bites)
    return load_catalog(root)


def correct_choice(coach, state) -> int:
    """The shown index of the right answer for the state's current question."""
    question = coach.catalog.questions[state.question.question_id]
    return state.question.options.index(question.options[question.answer])


def wrong_choice(coach, state) -> int:
    return (correct_choice(coach, state) + 1) % 4


class TickingClock(Clock):
    """Like Clock, but every reading is a millisecond after the last, as real time is."""

    def __call__(self) -> datetime:
        self.moment += timedelta(milliseconds=1)
        return self.moment
