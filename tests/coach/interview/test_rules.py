"""The interview's rules on a shipped bite (kv-cache: three core points, then three depth)."""

import pytest

from coach.interview.rules import (
    FOLLOW_UP_XP_CAP, MAX_FOLLOW_UPS, Turn, coaching_lines, current_statuses, follow_up_point, follow_up_xp,
    question_card, signal,
)


@pytest.fixture(scope="module")
def bite(shipped_catalog):
    found = shipped_catalog.bites["kv-cache"]
    assert [p.kind for p in found.key_points] == ["core", "core", "core", "depth", "depth", "depth"]
    return found


def first(statuses, score=2, red_flag=False):
    return Turn(0, 0, None, "q", None, False, tuple(statuses), score=score, red_flag=red_flag)


def follow(n, point, status, passed=False):
    return Turn(n, 0, point, "f", None, passed, (status,))


def test_probes_a_wrong_core_point_before_a_missing_one_and_core_before_depth(bite):
    statuses = ["covered", "missing", "wrong", "missing", "partial", "covered"]
    assert follow_up_point(bite, statuses, []) == 2  # core stated wrongly
    assert follow_up_point(bite, statuses, [2]) == 1  # then core missing
    assert follow_up_point(bite, ["covered", "covered", "partial", "missing", "covered", "covered"], []) == 2


def test_at_most_three_follow_ups_and_one_depth_probe_once_the_core_is_covered(bite):
    weak = ["missing"] * 6
    assert follow_up_point(bite, weak, [0, 1, 2]) is None
    assert MAX_FOLLOW_UPS == 3
    strong = ["covered", "covered", "covered", "missing", "missing", "partial"]
    assert follow_up_point(bite, strong, []) == 3
    assert follow_up_point(bite, strong, [3]) is None  # one depth probe is enough for a strong answer
    assert follow_up_point(bite, ["covered"] * 6, []) is None


def test_a_follow_up_upgrades_a_point_but_never_downgrades_it(bite):
    turns = [first(["covered", "missing", "wrong", "missing", "missing", "missing"]),
             follow(1, 1, "covered"), follow(2, 2, "partial"), follow(3, 0, "missing")]
    assert current_statuses(bite, turns, 0)[:3] == ["covered", "covered", "partial"]


def test_the_card_tells_landed_from_rescued_partly_missed_and_wrong(bite):
    turns = [first(["covered", "missing", "wrong", "missing", "partial", "missing"]),
             follow(1, 2, "wrong"), follow(2, 1, "covered")]
    card = question_card(bite, turns, 0)
    assert [got for _, _, got in card.outcomes] == ["landed", "rescued", "wrong", "missed", "partly", "missed"]
    assert card.follow_ups == 2 and card.score == 2


@pytest.mark.parametrize("statuses, follow_ups, red_flag, expected", [
    (["covered"] * 3 + ["missing"] * 3, [], False, "strong_yes"),  # every core point unprompted
    (["covered", "covered", "missing"] + ["missing"] * 3, [(2, "covered")], False, "lean_yes"),  # core 0.92
    (["covered", "missing", "missing"] + ["missing"] * 3, [(1, "covered"), (2, "covered")], False, "lean_yes"),  # .83
    (["covered", "missing", "missing"] + ["missing"] * 3, [(1, "covered"), (2, "partial")], False, "lean_no"),  # .75
    (["covered", "partial", "missing"] + ["missing"] * 3, [(2, "missing")], False, "lean_no"),
    (["missing"] * 6, [(0, "missing"), (1, "partial")], False, "strong_no"),
    (["covered"] * 3 + ["missing"] * 3, [], True, "lean_no"),  # a sure red flag caps a strong answer
    (["covered"] * 3 + ["wrong", "missing", "missing"], [], False, "lean_no"),  # so does a wrong depth claim
    (["covered", "covered", "wrong"] + ["missing"] * 3, [(2, "covered")], False, "lean_no"),  # put right later
    (["wrong", "missing", "missing"] + ["missing"] * 3, [(0, "wrong")], False, "strong_no"),
])
def test_the_signal_rule(bite, statuses, follow_ups, red_flag, expected):
    turns = [first(statuses, red_flag=red_flag)] + [follow(i + 1, p, s) for i, (p, s) in enumerate(follow_ups)]
    assert signal([question_card(bite, turns, 0)]) == expected


def test_no_signal_without_an_answer(bite):
    assert signal([question_card(bite, [], 0)]) is None


def test_coaching_names_a_missed_core_point_before_a_rescued_one_and_depth(bite):
    turns = [first(["covered", "missing", "missing", "missing", "missing", "missing"]),
             follow(1, 1, "covered"), follow(2, 2, "missing")]
    lines = coaching_lines([bite], [question_card(bite, turns, 0)])
    assert lines[0] == f"{bite.title}: {bite.key_points[2].coaching}"
    assert lines[1].startswith(f"{bite.title}: {bite.key_points[1].coaching}") and "only when asked" in lines[1]


def test_follow_up_xp_only_for_a_point_that_lands_and_within_the_cap():
    assert follow_up_xp(["covered"], 0) == 5 and follow_up_xp(["partial"], 0) == 2
    assert follow_up_xp(["missing"], 0) == 0 and follow_up_xp(["wrong"], 0) == 0
    assert follow_up_xp(["covered"], FOLLOW_UP_XP_CAP - 3) == 3 and follow_up_xp(["covered"], FOLLOW_UP_XP_CAP) == 0
