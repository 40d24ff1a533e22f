"""The off-topic threshold rule `bench.retrieval` calibrates on dev with."""

from bench.retrieval import MIN_ON_TOPIC_KEPT, calibrate


def test_the_threshold_keeps_the_on_topic_share_then_refuses_the_most_off_topic_texts():
    on = [0.30, *[0.60 + i / 1000 for i in range(99)]]  # one low on-topic answer in a hundred
    off = [0.20, 0.40, 0.55, 0.70]
    threshold = calibrate(on, off)
    kept = sum(s >= threshold for s in on) / len(on)
    assert kept >= MIN_ON_TOPIC_KEPT
    # 0.55 is refused (the cut sits between it and the on-topic cluster); 0.70 cannot be without
    # refusing half the on-topic answers.
    assert 0.55 < threshold <= 0.60


def test_when_no_cut_keeps_enough_on_topic_answers_it_keeps_them_all():
    on = [0.50, 0.51, 0.52]
    off = [0.60, 0.61]
    assert calibrate(on, off) <= 0.50
