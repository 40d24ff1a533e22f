"""The staged training data under content/judge/experiments/: well-formed against the catalog,
and not read by `coach grader train` until a session moves it (content/judge/README.md)."""

from collections import Counter

from coach.grading.point_training import DATA_DIR, check_rows, data_files, load_file, load_rows
from content import default_catalog

LONG = DATA_DIR / "experiments" / "long-answers.jsonl"


def test_long_answers_are_labelled_against_every_key_point_of_a_live_bite():
    catalog = default_catalog()
    rows = load_file(LONG)
    assert check_rows(rows, catalog) == []
    assert {r["bite_id"] for r in rows} == set(catalog.bites)
    assert all(len(r["text"].split()) >= 100 for r in rows)
    kinds = Counter(r["kind"] for r in rows)
    assert set(kinds) == {"long_correct", "long_wrong_core", "long_wrong_depth", "long_misconception"}
    # The point of the set: long answers where one claim among right ones is labelled wrong.
    wrong = [r for r in rows if r["kind"] != "long_correct"]
    assert sum("wrong" in r["key_points"] and r["key_points"].count("covered") >= 2 for r in wrong) >= 0.9 * len(wrong)


def test_its_writers_are_new_and_the_trainer_does_not_read_it_yet():
    staged = {r["writer"] for r in load_file(LONG)}
    trained = {r["writer"] for r in load_rows()}
    assert staged and staged.isdisjoint(trained)
    assert LONG not in data_files()


SENTENCES = DATA_DIR / "experiments" / "long-answer-sentences.jsonl"


def test_every_sentence_of_the_long_answers_is_labelled_once():
    """The long answers labelled sentence by sentence (how the key-point model reads them):
    each row is its answer's n-th sentence as the grader splits it, against every key point."""
    from retrieval import split_sentences

    catalog = default_catalog()
    answers = {r["id"]: r for r in load_file(LONG)}
    rows = load_file(SENTENCES)
    assert check_rows(rows, catalog) == []
    seen = Counter(r["answer"] for r in rows)
    for answer_id, answer in answers.items():
        sentences = split_sentences(answer["text"])
        assert seen[answer_id] == len(sentences), answer_id
    for r in rows:
        assert r["bite_id"] == answers[r["answer"]]["bite_id"]
        assert split_sentences(answers[r["answer"]]["text"])[r["sentence"] - 1] == r["text"], r["id"]
    # A correct long answer has no sentence labelled wrong; the others hold the wrong claims.
    wrong_in = Counter(answers[r["answer"]]["kind"] for r in rows if "wrong" in r["key_points"])
    assert wrong_in["long_correct"] == 0 and sum(wrong_in.values()) >= 300
    assert SENTENCES not in data_files()
