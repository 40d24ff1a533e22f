"""The score function (DESIGN.md "The grading scale"), table-driven on a fixed rule."""

import pytest

from coach.grading.scoring import ScoreRule, credit, quality, score_answer

C, P, M, W = "covered", "partial", "missing", "wrong"
RULE = ScoreRule(depth_weight=0.25, lands=0.9, solid=0.65, gist=0.35)
CORE2_DEPTH3 = ["core", "core", "depth", "depth", "depth"]

# (statuses for two core + three depth points, purpose stated, expected score under RULE)
TABLE = [
    ([C, C, M, M, M], False, 4),  # every core point, no detail: lands (a short spoken answer)
    ([C, C, C, C, C], False, 4),
    ([C, P, C, C, C], False, 4),  # a loose core point made up by the depth: 0.75 + 0.25
    ([C, P, M, M, M], False, 3),  # 0.75: solid, with a gap an interviewer would probe
    ([P, P, M, M, M], False, 2),  # 0.5: the gist, loosely
    ([C, M, M, M, M], True, 2),  # half the core
    ([P, M, M, M, M], False, 1),  # 0.25: one point, buried
    ([M, M, C, M, M], False, 1),  # depth alone, no core: something, not the mechanism
    ([M, M, M, M, M], True, 1),  # the purpose only
    ([M, M, M, M, M], False, 0),
    ([W, M, M, M, M], False, 0),  # wrong about the mechanism, nothing right
    ([W, C, C, C, C], True, 1),  # a core point stated wrongly: 1 however fluent the rest
    ([C, C, W, M, M], False, 3),  # a depth point stated wrongly: at most 3
    ([C, C, W, C, C], False, 3),
    ([C, P, W, M, M], False, 3),  # already 3: the depth cap changes nothing
]


@pytest.mark.parametrize("statuses, purpose, expected", TABLE)
def test_score_table(statuses, purpose, expected):
    got = score_answer(statuses, CORE2_DEPTH3, purpose=purpose, red_flag=False, injection=False,
                       keyword_soup=False, rule=RULE)
    assert got == expected


@pytest.mark.parametrize(
    "red_flag, injection, soup, other_concept, expected",
    [
        (True, False, False, False, 1),  # the red flag: 1 whatever else is right
        (False, True, False, False, 0),  # an attempt to instruct the grader beats everything
        (True, True, False, False, 0),
        (False, False, True, False, 0),  # a list of terms that explains no mechanism
        (True, False, True, False, 0),
        (False, False, False, True, 0),  # a neighbouring concept explained instead of this one
    ],
)
def test_overrides(red_flag, injection, soup, other_concept, expected):
    got = score_answer([C] * 5, CORE2_DEPTH3, purpose=True, red_flag=red_flag, injection=injection,
                       keyword_soup=soup, off_topic=other_concept, rule=RULE)
    assert got == expected


def test_quality_weights_core_over_depth():
    assert credit([C, P, M, W]) == pytest.approx(0.375)
    assert credit([]) == 0.0
    assert quality([C, C, M, M, M], CORE2_DEPTH3, 0.25) == pytest.approx(1.0)
    assert quality([M, M, C, C, C], CORE2_DEPTH3, 0.25) == pytest.approx(0.25)
    assert quality([C, C, C], ["core"] * 3, 0.5) == pytest.approx(1.0)  # no depth points: core alone


def test_rule_rejects_cutoffs_that_do_not_rise():
    with pytest.raises(ValueError):
        ScoreRule(depth_weight=0.2, lands=0.6, solid=0.7, gist=0.3)
