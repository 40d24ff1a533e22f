"""The dev-only fit, on small hand-made data (no model needed)."""

import numpy as np
import pytest

from coach.grading.calibration import (
    SURE_MARGIN, Features, cross_validate, fit_purpose_level, fit_red_flag_levels, fit_score_rule, fit_thresholds, predict,
)
from coach.grading.scoring import ScoreRule


class _Point:
    def __init__(self, kind):
        self.kind = kind


class _Catalog:
    """Bites with two core points and two depth points."""

    def __init__(self, *ids):
        self.bites = {i: type("B", (), {"key_points": [_Point("core")] * 2 + [_Point("depth")] * 2})() for i in ids}


def row(score, points, purpose=False, red_flag=False):
    return {"bite_id": "b", "score": score, "key_points": points, "purpose": purpose,
            "red_flag": red_flag, "injection": False}


def test_score_rule_fits_the_gold_labels():
    C, P, M = "covered", "partial", "missing"
    rows = [
        row(4, [C, C, M, M]),  # all core, no depth: lands
        row(3, [C, P, M, M]),
        row(2, [P, P, M, M]),
        row(1, [M, M, M, M], purpose=True),
        row(1, [P, M, M, M]),
        row(0, [M, M, M, M]),
        {"bite_id": None, "score": None},  # off-topic rows are ignored
    ]
    rule, figures = fit_score_rule(rows, _Catalog("b"))
    assert figures["exact"] == 1.0 and figures["n"] == 6
    assert rule.gist <= 0.5 < rule.solid <= 0.75 < rule.lands <= 1.0


def features(rows):
    """rows: (bite, gold, gold red flag, best sims of 2 core + 2 depth points, purpose sim, red-flag probability)."""
    return Features(
        point_best=[np.array(r[3]) for r in rows], kinds=[["core", "core", "depth", "depth"]] * len(rows),
        purpose_best=np.array([r[4] for r in rows]), gold_purpose=np.array([r[4] >= 0.5 for r in rows]),
        flag_score=np.array([r[5] for r in rows]),
        zeroed=np.zeros(len(rows), bool), gold=np.array([r[1] for r in rows]),
        gold_flag=np.array([r[2] for r in rows]), bites=[r[0] for r in rows],
    )


RULE = ScoreRule(depth_weight=0.25, lands=0.9, solid=0.65, gist=0.35)
ROWS = [
    ("a", 4, False, [0.8, 0.8, 0.3, 0.3], 0.7, 0.30),
    ("a", 1, True, [0.5, 0.3, 0.3, 0.3], 0.3, 0.90),  # makes the mistake
    ("b", 2, False, [0.75, 0.3, 0.2, 0.2], 0.4, 0.25),
    ("b", 1, False, [0.3, 0.3, 0.2, 0.2], 0.7, 0.20),  # the purpose only
    ("c", 0, False, [0.2, 0.2, 0.2, 0.2], 0.2, 0.10),
    ("c", 3, False, [0.8, 0.55, 0.2, 0.2], 0.5, 0.35),
] * 3


def test_sure_red_flag_level_keeps_answers_without_the_mistake_clear():
    f = features(ROWS)
    sure, possible = fit_red_flag_levels(f)
    assert 0.35 < sure <= 0.90
    assert possible <= sure
    assert not (f.flag_score[~f.gold_flag] >= sure).any()


def test_sure_level_keeps_a_margin_above_the_clean_answers_of_dev():
    """Dev's clean answers bound the tail poorly: the sure level starts SURE_MARGIN above
    the lowest level none of them reaches (0.36 here: the highest clean contrast is 0.35)."""
    sure, possible = fit_red_flag_levels(features(ROWS))
    assert sure == pytest.approx(0.36 + SURE_MARGIN)
    assert possible < sure


def test_red_flag_is_never_sure_when_clean_answers_reach_every_level():
    rows = ROWS + [("d", 4, False, [0.8] * 4, 0.7, 0.99)] * 2  # clean answers at 0.99 (2 of 20: 10%)
    sure, _ = fit_red_flag_levels(features(rows))
    assert sure > 1.0


def test_thresholds_reproduce_the_labels():
    f = features(ROWS)
    t = fit_thresholds(f, RULE)
    assert t.partial < t.covered
    assert list(predict(f, t, RULE)) == list(f.gold)


def test_purpose_level_follows_the_gold_purpose_labels():
    f = features(ROWS)
    level = fit_purpose_level(f)
    assert 0.4 < level <= 0.5  # the rows state the purpose exactly when their similarity is >= 0.5
    assert ((f.purpose_best >= level) == f.gold_purpose).all()


def test_cross_validation_holds_whole_bites_out():
    figures = cross_validate(features(ROWS), RULE, folds=3)
    assert set(figures) == {"qwk", "mean_offset", "exact"}
    assert -4 <= figures["mean_offset"] <= 4 and figures["qwk"] <= 1.0


@pytest.mark.parametrize("gold", [[0, 1], [4, 4]])
def test_figures_stay_defined_on_tiny_sets(gold):
    rows = [("a", g, False, [0.9] * 4, 0.9, 0.1) for g in gold]
    t = fit_thresholds(features(rows), RULE)
    assert t.covered >= t.partial
