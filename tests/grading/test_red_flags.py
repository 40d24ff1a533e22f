"""The red-flag model: its fit on plain numbers, and the shipped model on shipped bites."""

import numpy as np
import pytest

from coach.grading.red_flags import RedFlagModel, red_flag_claims, training_set
from retrieval import split_sentences


def test_fit_learns_which_side_of_the_gap_is_the_mistake():
    rng = np.random.default_rng(0)
    gap = np.r_[rng.normal(0.15, 0.05, 50), rng.normal(-0.15, 0.05, 50)]
    features = np.stack([0.6 + gap / 2, 0.6 - gap / 2, gap, gap, np.zeros(100)], 1)
    labels = np.r_[np.ones(50, bool), np.zeros(50, bool)]
    model = RedFlagModel.fit(features, labels)
    assert ((model.probability(features) >= 0.5) == labels).mean() > 0.95


def test_red_flag_claims_drop_the_lead_verb_and_the_correction():
    claims = red_flag_claims("Says the cache stores the weights, rather than keys and values.")
    assert claims == ["the cache stores the weights"]


@pytest.mark.parametrize(
    ("answer", "flagged"),
    [
        ("so the kv cache, it just holds onto the model weights in GPU memory so they aren't loaded again", True),
        ("honestly it's a response cache: same prompt comes in again, you hand back the stored reply", True),
        ("It keeps each earlier token's keys and values per layer, so a decode step only projects the new token.", False),
        ("It is not a response cache and it never stores weights; it holds the keys and values of past tokens.", False),
    ],
)
def test_shipped_model_tells_the_mistake_from_the_correct_idea(embedding_judge, shipped_catalog, answer, flagged):
    bite = shipped_catalog.bites["kv-cache"]
    probability = embedding_judge.similarities(bite, answer).red_flag_probability(embedding_judge.red_flag_model).max()
    assert bool(probability >= embedding_judge.thresholds.red_flag_possible) is flagged, probability


def test_the_sure_level_sits_above_the_possible_one(embedding_judge):
    assert embedding_judge.thresholds.red_flag_possible <= embedding_judge.thresholds.red_flag_sure


def test_training_set_masks_each_text_from_matching_itself(embedder, shipped_catalog):
    features, labels = training_set(embedder, [shipped_catalog.bites["kv-cache"]], split_sentences)
    assert labels.sum() >= 4 and (~labels).sum() >= 10
    assert features[:, 0].max() < 0.99  # no red-flag text scored against itself (that would be 1.0)
