"""The score function from DESIGN.md, table-driven."""

import pytest

from coach.grading.scoring import CALIBRATED_THRESHOLDS, DEFAULT_THRESHOLDS, coverage, score_answer

C, P, M, W = "covered", "partial", "missing", "wrong"

# (statuses, red_flag, injection, keyword_soup, expected score with DESIGN.md's default thresholds)
TABLE = [
    ([C, C, C, C], False, False, False, 4),
    ([C, C, C, C, C], False, False, False, 4),
    ([C, C, C, C, P], False, False, False, 4),  # 0.9 reaches "every key point"
    ([C, C, C, P], False, False, False, 3),  # 0.875
    ([C, C, C, M], False, False, False, 3),  # 3 of 4: "most"
    ([C, C, C, M, M], False, False, False, 3),  # 0.6 exactly
    ([C, C, M, M], False, False, False, 2),  # half
    ([P, P, P, P], False, False, False, 2),  # loosely stated throughout: 0.5
    ([C, M, M, M], False, False, False, 2),  # 0.25 reaches the default "about half" cut-off
    ([C, M, M, M, M], False, False, False, 1),  # 0.2: one point
    ([P, M, M, M, M], False, False, False, 1),  # 0.1: something, barely
    ([M, M, M, M], False, False, False, 0),
    ([W, M, M, M], False, False, False, 0),
    ([C, C, C, W], False, False, False, 2),  # 0.75 would be 3, but a wrong point caps at 2
    ([C, C, C, C, W], False, False, False, 2),  # 0.8 capped
    ([C, W, M, M], False, False, False, 2),  # 0.25 -> 2, cap does not raise it
    ([C, C, C, C], True, False, False, 1),  # red flag: 1 whatever else is right
    ([M, M, M, M], True, False, False, 1),  # on-topic answer that hits the red flag
    ([C, C, C, C], False, True, False, 0),  # injection beats everything
    ([C, C, C, C], True, True, False, 0),  # injection beats the red flag too
    ([C, C, C, C], False, False, True, 0),  # keyword soup
    ([C, C, C, C], True, False, True, 0),  # keyword soup beats the red flag
    ([], False, False, False, 0),  # no key points judged: nothing covered
]


@pytest.mark.parametrize("statuses, red_flag, injection, soup, expected", TABLE)
def test_score_function_with_design_defaults(statuses, red_flag, injection, soup, expected):
    got = score_answer(statuses, red_flag=red_flag, injection=injection, keyword_soup=soup, thresholds=DEFAULT_THRESHOLDS)
    assert got == expected


@pytest.mark.parametrize(
    "statuses, expected",
    [
        ([C, M, M, M], 1),  # one point of four, buried: the scale says 1 (the calibrated cut-off is 0.3)
        ([P, P, M, M, P], 2),  # 0.3: about half, loosely
        ([C, C, M, M], 2),
        ([C, C, C, M], 3),
        ([C, C, C, C], 4),
    ],
)
def test_calibrated_cutoffs(statuses, expected):
    got = score_answer(statuses, red_flag=False, injection=False, keyword_soup=False, thresholds=CALIBRATED_THRESHOLDS)
    assert got == expected


def test_coverage_credits_partial_as_half():
    assert coverage([C, P, M, W]) == pytest.approx(0.375)
    assert coverage([]) == 0.0
