"""The combined CPU judge (coach.grading.combined_judge): the embedding judge's verdicts, the trained
model's mechanism reading on every answer and its key points on short answers only."""

import pytest

from coach.grading.combined_judge import combine
from coach.grading.models import KeyPointVerdict, Verdicts
from coach.grading.pipeline import load_point_judge
from retrieval import split_sentences
from tests.grading.conftest import make_grader


def verdicts(*statuses: str, soup: bool = False) -> Verdicts:
    return Verdicts(key_points=[KeyPointVerdict(point=f"point {i}", kind="core", status=s,
                                                evidence=None if s == "missing" else f"{s} quote {i}")
                                for i, s in enumerate(statuses)], red_flag=False, injection=False, keyword_soup=soup)


def test_a_short_answer_takes_the_points_the_trained_model_reads_as_covered():
    base = verdicts("covered", "missing", "partial", "missing")
    reading = verdicts("missing", "covered", "covered", "wrong")
    combined = combine(base, reading, explains=True)
    assert [p.status for p in combined.key_points] == ["covered", "covered", "covered", "missing"]
    assert combined.key_points[1].evidence == "covered quote 1", "the trained model's quote comes with its tick"
    assert not combined.keyword_soup


def test_a_long_answer_keeps_the_embedding_judges_points_and_either_judge_can_call_a_list():
    base = verdicts("covered", "missing")
    assert combine(base, None, explains=True).key_points == base.key_points
    assert combine(base, None, explains=False).keyword_soup
    assert combine(verdicts("covered", soup=True), None, explains=True).keyword_soup


class Counting:
    """The trained judge, counting what the combined judge asks of it."""

    def __init__(self, judge):
        self.judge, self.asked = judge, []

    async def verdicts(self, bite, text):
        self.asked.append("verdicts")
        return await self.judge.verdicts(bite, text)

    async def explains(self, bite, text):
        self.asked.append("explains")
        return await self.judge.explains(bite, text)


@pytest.fixture(scope="module")
def point_judge(shipped_fit, embedder):
    return load_point_judge(shipped_fit, embedder, split_sentences)


@pytest.fixture
def combined(shipped_catalog, shipped_topics, embedding_judge, point_judge):
    grader = make_grader(shipped_catalog, shipped_topics, embedding_judge)
    grader.point_judge, grader.cpu_judge = Counting(point_judge), "combined"
    return grader


SHORT = ("The KV cache stores the keys and values of every earlier token in each layer, so decoding a new token "
         "only computes its own key and value instead of redoing the whole prefix.")
BUZZWORDS = ("KV cache, keys and values, attention layers, memory bandwidth, PagedAttention, GQA, quantized cache, "
             "throughput and latency, it's all about optimal decode efficiency at scale.")


async def test_a_short_answer_is_read_point_by_point_and_a_long_one_only_for_its_mechanism(combined, shipped_catalog):
    grade = await combined.grade(SHORT, "kv-cache")
    assert grade.grader == "combined" and combined.point_judge.asked == ["verdicts"]
    long_answer = " ".join([shipped_catalog.bites["kv-cache"].model_answer] * 2)
    assert len(long_answer.split()) > combined.fit.short_words
    await combined.grade(long_answer, "kv-cache")
    assert combined.point_judge.asked == ["verdicts", "explains"], "a long answer costs one model call"


async def test_a_list_of_the_right_terms_earns_nothing(combined):
    grade = await combined.grade(BUZZWORDS, "kv-cache")
    assert (grade.grader, grade.keyword_soup, grade.score) == ("combined", True, 0)


async def test_the_label_falls_back_to_the_embedding_judge_without_the_model(combined):
    combined.point_judge = None
    assert (await combined.grade(SHORT, "kv-cache")).grader == "embedding"
