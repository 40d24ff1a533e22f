"""The quote check's figures: per evidence rule, the share of its quotes each checker says support
their tick, and on the ticks the graders call right; a missing label stops the summary."""

import json

import pytest

from bench.quote_check import cohen_kappa, summary


def write(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def item(name, rules, gold="covered"):
    return {"item": name, "key_point": "p", "verdict": "covered", "quote": "q", "shown_by": rules,
            "answer_id": "x", "point_index": 0, "gold_status": gold}


def test_each_rule_is_scored_on_its_own_quotes_by_both_checkers(tmp_path):
    stem = tmp_path / "check"
    write(tmp_path / "check_items.jsonl", [item("q0", ["old", "new"]), item("q1", ["old"]), item("q2", ["new"], gold="wrong")])
    write(tmp_path / "check_checker_a.jsonl", [{"item": "q0", "supports": True}, {"item": "q1", "supports": False},
                                              {"item": "q2", "supports": False}])
    write(tmp_path / "check_checker_b.jsonl", [{"item": "q0", "supports": True}, {"item": "q1", "supports": True},
                                              {"item": "q2", "supports": False}])
    figures = summary(stem)
    assert figures["rules"]["old"] == {"ticks": 2, "a": 1, "b": 2, "right_ticks": 2, "right_a": 1, "right_b": 2}
    assert figures["rules"]["new"] == {"ticks": 2, "a": 1, "b": 1, "right_ticks": 1, "right_a": 1, "right_b": 1}
    assert figures["agreement"] == pytest.approx(2 / 3)


def test_a_quote_without_both_labels_stops_the_summary(tmp_path):
    write(tmp_path / "check_items.jsonl", [item("q0", ["old"]), item("q1", ["old"])])
    write(tmp_path / "check_checker_a.jsonl", [{"item": "q0", "supports": True}, {"item": "q1", "supports": True}])
    write(tmp_path / "check_checker_b.jsonl", [{"item": "q0", "supports": True}])
    with pytest.raises(SystemExit, match="q1"):
        summary(tmp_path / "check")


def test_kappa_is_one_for_identical_labels_and_zero_at_chance():
    assert cohen_kappa([True, False, True], [True, False, True]) == pytest.approx(1.0)
    assert cohen_kappa([True, True, False, False], [True, False, True, False]) == pytest.approx(0.0)
