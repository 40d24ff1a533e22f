"""The dev-only threshold search, on small hand-made similarity data (no model needed)."""

import numpy as np

from coach.grading.calibration import (
    _Features, cross_validated_red_flag, fit_red_flag, fit_score_thresholds, search,
)
from coach.grading.scoring import ScoreThresholds


def test_score_cutoffs_fit_the_hand_labels():
    # One point of four buried in filler is labelled 1: the default "half" (0.25) would say 2.
    rows = [
        {"bite_id": "b", "kind": "rambling", "score": 1, "red_flag": False, "injection": False,
         "key_points": ["covered", "missing", "missing", "missing"]},
        {"bite_id": "b", "kind": "partial", "score": 2, "red_flag": False, "injection": False,
         "key_points": ["partial", "partial", "missing", "missing", "partial"]},
        {"bite_id": "b", "kind": "strong", "score": 4, "red_flag": False, "injection": False,
         "key_points": ["covered"] * 4},
        {"bite_id": None, "kind": "off_topic", "score": None, "red_flag": False, "injection": False, "key_points": []},
    ]
    fitted, exact = fit_score_thresholds(rows)
    assert exact == 1.0
    assert 0.25 < fitted.half <= 0.3  # the nearest cut-off to the default that fits both rows


def features(rows):
    """rows: (bite, gold score, gold red flag, key-point best sims, highest red-flag probability)."""
    return _Features(
        point_best=[np.array(r[3]) for r in rows],
        flag_probability=np.array([r[4] for r in rows]),
        zeroed=np.zeros(len(rows), bool),
        gold=np.array([r[1] for r in rows]),
        gold_flag=np.array([r[2] for r in rows]),
        bites=[r[0] for r in rows],
    )


ROWS = [
    ("a", 4, False, [0.8, 0.8, 0.8], 0.30),  # correct, on the red flag's subject
    ("a", 1, True, [0.5, 0.3, 0.3], 0.70),  # makes the mistake
    ("b", 2, False, [0.75, 0.5, 0.2], 0.25),
    ("b", 1, True, [0.3, 0.3, 0.3], 0.62),
    ("c", 0, False, [0.2, 0.2, 0.2], 0.10),
    ("c", 1, True, [0.4, 0.2, 0.2], 0.66),
]


def test_red_flag_fit_separates_the_mistakes_from_correct_answers():
    f = features(ROWS)
    level = fit_red_flag(f)
    assert 0.30 < level <= 0.62
    assert list(f.flag_probability >= level) == [False, True, False, True, False, True]


def test_search_returns_thresholds_that_reproduce_the_labels():
    found = search(features(ROWS), ScoreThresholds(full=0.9, most=0.6, half=0.3))
    assert found.red_flag_recall == 1.0 and found.red_flag_precision == 1.0
    assert found.qwk > 0.9
    assert found.embedding.partial < found.embedding.covered


def test_cross_validation_holds_each_bite_out():
    recall, precision = cross_validated_red_flag(features(ROWS))
    assert recall == 1.0 and precision == 1.0  # the same gap in every bite, so it carries over


def test_cross_validation_exposes_a_fit_that_does_not_carry_over():
    # Bite c's mistake scores lower than the others' correct answers: a threshold fitted on
    # a and b (highest separating value wins ties) misses it, and the estimate says so.
    rows = ROWS[:5] + [("c", 1, True, [0.4, 0.2, 0.2], 0.28)]
    recall, _ = cross_validated_red_flag(features(rows))
    assert recall < 1.0
