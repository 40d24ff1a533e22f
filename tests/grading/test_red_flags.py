"""The red flag as the embedding judge sees it: the texts it contrasts, and the shipped
levels on a shipped bite (a mistake stated, the right idea, the mistake rejected)."""

import pytest

from coach.grading.red_flags import correct_texts, red_flag_claims, red_flag_texts
from retrieval import split_sentences


def test_red_flag_claims_drop_the_lead_verb_and_the_correction():
    claims = red_flag_claims("Says the cache stores the weights, rather than keys and values.")
    assert claims == ["the cache stores the weights"]


def test_alternatives_become_separate_claims():
    claims = red_flag_claims("Says the cache stores the model weights, or claims that it returns stored answers.")
    assert "the cache stores the model weights" in claims and "it returns stored answers" in claims


def test_mistaken_and_correct_texts_come_from_the_bite(shipped_catalog):
    bite = shipped_catalog.bites["kv-cache"]
    assert set(bite.red_flag_phrasings) <= set(red_flag_texts(bite))
    correct = correct_texts(bite, split_sentences)
    assert set(bite.point_texts) <= set(correct) and not set(correct) & set(red_flag_texts(bite))


@pytest.mark.parametrize(
    ("answer", "flagged"),
    [
        ("so the kv cache, it just holds onto the model weights in GPU memory so they aren't loaded again", True),
        ("honestly it's a response cache: same prompt comes in again, you hand back the stored reply", True),
        ("It keeps each earlier token's keys and values per layer, so a decode step only projects the new token.", False),
        ("It is not a response cache and it never stores weights; it holds the keys and values of past tokens.", False),
    ],
)
def test_shipped_levels_tell_the_mistake_from_the_correct_idea(embedding_judge, shipped_catalog, answer, flagged):
    contrast = embedding_judge.similarities(shipped_catalog.bites["kv-cache"], answer).red_flag_contrast
    assert bool(contrast >= embedding_judge.thresholds.red_flag_possible) is flagged, contrast


def test_the_sure_level_sits_above_the_possible_one(embedding_judge):
    assert embedding_judge.thresholds.red_flag_possible <= embedding_judge.thresholds.red_flag_sure


def test_a_mistake_in_one_sentence_of_a_long_right_answer_is_still_seen(embedding_judge, shipped_catalog):
    """The contrast is read per sentence: right sentences around the mistake do not outvote it."""
    bite = shipped_catalog.bites["kv-cache"]
    right = ("It keeps each earlier token's keys and values per layer, so a decode step only projects the new "
             "token. Without it every step would recompute attention inputs for the whole prefix. The cost is "
             "memory that grows with context length and batch size, and each step reads all of it. ")
    mistake = "Basically the kv cache just holds onto the model weights in GPU memory so they aren't loaded again."
    alone = embedding_judge.similarities(bite, right).red_flag_contrast
    with_mistake = embedding_judge.similarities(bite, right + mistake).red_flag_contrast
    assert with_mistake >= embedding_judge.thresholds.red_flag_possible > alone, (with_mistake, alone)
