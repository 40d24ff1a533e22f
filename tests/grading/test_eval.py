"""The eval metrics: kappa, agreement, red-flag and injection rates, disagreement listing."""

import numpy as np
import pytest

from coach.grading.eval import agreement, disagreements, evaluate, quadratic_weighted_kappa
from coach.grading.models import Grade, GradeError, KeyPointVerdict, OffTopic


def test_qwk_reference_values():
    assert quadratic_weighted_kappa([0, 1, 2, 3, 4], [0, 1, 2, 3, 4]) == pytest.approx(1.0)
    assert quadratic_weighted_kappa([0, 1, 2, 3, 4], [4, 3, 2, 1, 0]) == pytest.approx(-1.0)
    assert quadratic_weighted_kappa([0, 1, 2, 3, 4], [2, 2, 2, 2, 2]) == pytest.approx(0.0)


@pytest.mark.parametrize("seed", range(5))
def test_qwk_matches_scikit_learn(seed):
    from sklearn.metrics import cohen_kappa_score

    rng = np.random.default_rng(seed)
    gold = rng.integers(0, 5, 40)
    pred = np.clip(gold + rng.integers(-2, 3, 40), 0, 4)
    expected = cohen_kappa_score(gold, pred, weights="quadratic", labels=list(range(5)))
    assert quadratic_weighted_kappa(list(gold), list(pred)) == pytest.approx(expected)


def test_qwk_penalises_distance_quadratically():
    gold = [0, 1, 2, 3, 4, 0, 1, 2, 3, 4]
    near = [1, 1, 2, 3, 4, 0, 1, 2, 3, 3]
    far = [4, 1, 2, 3, 4, 0, 1, 2, 3, 0]
    assert quadratic_weighted_kappa(gold, near) > quadratic_weighted_kappa(gold, far)


def grade(score, *, red_flag=False, injection=False, grader="embedding") -> Grade:
    return Grade(
        bite_id="b", title="B", score=score, key_points=[KeyPointVerdict(point="p", status="covered")],
        red_flag=red_flag, injection=injection, grader=grader, feedback="", model_answer="", follow_up="", truncated=False,
    )


def row(score, *, red_flag=False, injection=False, bite="b"):
    return {"bite_id": bite, "score": score, "red_flag": red_flag, "injection": injection, "answer": "text", "kind": "x"}


def test_evaluate_counts_every_metric():
    rows = [
        row(4), row(2), row(1, red_flag=True), row(1, red_flag=True), row(0, injection=True), row(0, injection=True),
        row(None, bite=None), row(3),
    ]
    results = [
        grade(4), grade(3), grade(1, red_flag=True), grade(2), grade(0, injection=True), grade(0),  # flag missed
        OffTopic(suggestions=[]), GradeError(error="empty_answer", message="empty"),  # ungraded on-topic: counts 0
    ]
    report = evaluate(rows, results, [10.0, 20.0, 30.0])
    assert report.n == 7
    assert report.exact == pytest.approx(4 / 7, abs=1e-4)
    assert report.within_1 == pytest.approx(6 / 7, abs=1e-4)
    assert report.red_flag_recall == pytest.approx(0.5) and report.red_flag_precision == pytest.approx(1.0)
    assert report.injection_catch_rate == pytest.approx(0.5)  # scored 0 *and* flagged
    assert report.off_topic_handled == pytest.approx(1.0)
    assert report.mean_offset == pytest.approx((0 + 1 + 0 + 1 + 0 + 0 - 3) / 7, abs=1e-4)
    assert report.graders == {"embedding": 6}
    assert report.latency_p50_ms == pytest.approx(20.0)


def test_agreement_and_disagreements_between_two_graders():
    rows = [row(4), row(2), row(0), row(None, bite=None)]
    baseline = [grade(4), grade(2), grade(1), OffTopic(suggestions=[])]
    candidate = [grade(4, grader="llm"), grade(3, grader="llm"), grade(1, grader="llm"), grade(2, grader="llm")]
    assert agreement(baseline, candidate)["n"] == 3
    assert agreement(baseline, candidate)["exact"] == pytest.approx(2 / 3, abs=1e-4)
    listed = disagreements(rows, baseline, candidate)
    assert [(d["index"], d["baseline"], d["candidate"]) for d in listed] == [(1, 2, 3), (3, "off_topic", 2)]
