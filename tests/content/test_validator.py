"""The validator catches each flaw on small broken tracks; the loader names bad files."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml

from content import ContentError, load_catalog
from content.validate import check, render_question


def make_bite(bite_id: str, answers=(0, 1, 2), related=()) -> dict:
    questions = []
    for n, answer in enumerate(answers, start=1):
        options = [f"Option {letter} for {bite_id} question {n}, all the same length" for letter in "wxyz"]
        questions.append({
            "id": f"{bite_id}-q{n}",
            "stem": f"Which statement about {bite_id} holds (question {n})?",
            "options": options,
            "answer": answer,
            "explanation": "Because the mechanism works that way.",
            "distractor_notes": {i: f"Misconception {i}." for i in range(4) if i != answer},
        })
    return {
        "id": bite_id,
        "title": f"Title of {bite_id}",
        "prompt": f"Tell me about {bite_id}, please.",
        "tags": ["test"],
        "summary": f"One line about {bite_id}.",
        "explainer": "An explainer that is long enough to pass the minimum length of the schema. " * 3,
        "tests": "Whether the candidate knows it.",
        "purpose": f"It makes {bite_id} work better.",
        "key_points": [
            {"point": f"{label} point about {bite_id}.", "kind": kind, "coaching": f"Say the {label.lower()} point.",
             "follow_up": f"What about the {label.lower()} point?"}
            for label, kind in (("First", "core"), ("Second", "core"), ("Third", "depth"))
        ],
        "red_flag": "Says something badly wrong.",
        "model_answer": "So the way I would put it is that it works like this, and here is why it matters.",
        "related": list(related),
        "questions": questions,
    }


def write_track(root: Path, bites: list[dict]) -> Path:
    track = root / "demo"
    track.mkdir(parents=True, exist_ok=True)
    (track / "track.yaml").write_text("id: demo\ntitle: Demo track\n")
    for bite in bites:
        name = bite.pop("_file", bite["id"])
        (track / f"{name}.yaml").write_text(yaml.safe_dump(bite, sort_keys=False))
    return root


def balanced_bites() -> list[dict]:
    # 4 bites x 3 questions = 12; answers 0..3 three times each, never longest.
    return [make_bite("alpha", (0, 1, 2), ["beta"]), make_bite("beta", (3, 0, 1)),
            make_bite("gamma", (2, 3, 0)), make_bite("delta", (1, 2, 3))]


def messages(root: Path) -> list[str]:
    _, problems = check(root)
    return [str(p) for p in problems]


def test_a_clean_track_has_no_problems(tmp_path):
    assert messages(write_track(tmp_path, balanced_bites())) == []


@pytest.mark.parametrize(
    "mutate, expected",
    [
        (lambda b: b[0]["questions"][0].update(options=["a", "b", "c"]), "needs exactly 4 options"),
        (lambda b: b[0]["questions"][0]["options"].__setitem__(1, "  "), "an option is empty"),
        (lambda b: b[0]["questions"][0]["options"].__setitem__(2, b[0]["questions"][0]["options"][1]), "duplicate option"),
        (lambda b: b[0]["questions"][0].update(answer=4), "answer 4 is out of range"),
        (lambda b: b[0]["questions"][0]["distractor_notes"].pop(1), "no entry for wrong option 1"),
        (lambda b: b[0].update(related=["missing-bite"]), "related bite 'missing-bite' does not exist"),
        (lambda b: b[0].update(key_points=b[0]["key_points"][:1]), "key_points"),
        (lambda b: [p.update(kind="depth") for p in b[0]["key_points"]], "0 marked core"),
        (lambda b: b[0]["key_points"][0].pop("follow_up"), "follow_up"),
        (lambda b: b[0].pop("purpose"), "purpose"),
        (lambda b: b[0].pop("red_flag"), "red_flag"),
        (lambda b: b[1].update(id="alpha", _file="beta"), "duplicate id"),
        (lambda b: b[0]["questions"][1].update(id="alpha-q1"), "duplicate id"),
        (lambda b: b[0]["questions"][0].update(stem="x" * 990), "the question with its options is"),
        (lambda b: b[0]["questions"][0].update(explanation="e" * 3001), "explanation is 3001 characters"),
        (lambda b: b[0].update(explainer="y" * 3001), "explainer is 3001 characters; keep it to 3000"),
        (lambda b: b[0].update(model_answer="m" * 3001), "model_answer is 3001 characters"),
        (lambda b: b[0].update(title="t" * 81), "title is 81 characters; keep it to 80"),
    ],
)
def test_each_flaw_is_reported_with_file_and_item(tmp_path, mutate, expected):
    bites = copy.deepcopy(balanced_bites())
    mutate(bites)
    found = messages(write_track(tmp_path, bites))
    hits = [m for m in found if expected in m]
    assert hits, f"expected a problem containing {expected!r}, got {found}"
    assert all(".yaml" in m for m in hits)


def test_a_question_belongs_to_the_bite_of_its_file(tmp_path):
    bites = balanced_bites()
    bites[0]["questions"][0]["bite_id"] = "gamma"  # a stray hand-written id is overridden by the file
    catalog, problems = check(write_track(tmp_path, bites))
    assert catalog.questions["alpha-q1"].bite_id == "alpha"
    assert problems == []


def test_unbalanced_answer_positions_are_a_track_problem(tmp_path):
    bites = [make_bite(name, (0, 0, 1)) for name in ("alpha", "beta", "gamma", "delta")]
    found = messages(write_track(tmp_path, bites))
    assert any("correct option is A in 67%" in m for m in found), found
    assert any("correct option is C in 0%" in m for m in found), found
    assert all("track.yaml" in m for m in found if "correct option is" in m)


def test_longest_correct_option_rate_is_capped(tmp_path):
    bites = balanced_bites()
    for bite in bites:
        for q in bite["questions"]:
            q["options"][q["answer"]] += " with a giveaway tail that makes it the longest"
    found = messages(write_track(tmp_path, bites))
    assert any("is the longest in 100% of questions" in m for m in found), found


def test_malformed_yaml_names_the_file(tmp_path):
    root = write_track(tmp_path, balanced_bites())
    (root / "demo" / "broken.yaml").write_text("id: broken\ntitle: [unclosed\n")
    with pytest.raises(ContentError) as error:
        load_catalog(root)
    assert "broken.yaml" in str(error.value)
    assert "not valid YAML" in str(error.value)


def test_a_wrong_type_names_file_and_item(tmp_path):
    bites = balanced_bites()
    bites[2]["key_points"][1] = "a bare string"  # the old format: a point without kind, coaching, follow-up
    with pytest.raises(ContentError) as error:
        load_catalog(write_track(tmp_path, bites))
    text = str(error.value)
    assert "gamma.yaml" in text and "gamma: key_points.1" in text


def test_rendered_question_lists_lettered_options():
    catalog = load_catalog(write_track(Path(__import__("tempfile").mkdtemp()), balanced_bites()))
    text = render_question(catalog.questions["beta-q1"])
    assert text.splitlines()[0].startswith("Which statement about beta")
    assert "**D.** Option z" in text


def test_an_over_indented_list_line_is_caught(tmp_path):
    bites = balanced_bites()
    bites[2]["phrasings"] = ["One way to say it.", "Another way to say it."]
    root = write_track(tmp_path, bites)
    path = root / "demo" / "gamma.yaml"
    text = path.read_text().replace("- Another way to say it.", "  - Another way to say it.")
    path.write_text(text)
    found = messages(root)
    assert any("gamma.yaml" in m and "swallowed the next '- ' line" in m for m in found), found
