"""The one grading pipeline the Discord bot, the console and the CLI share:
pick the bite -> clean -> verdicts from a judge -> score in code -> feedback, model answer
and follow-up -> optionally store.

The judge: the LLM when one is configured, has qualified (coach.grading.qualification: until
then `llm_status` keeps its grades from members) and answers (its verdicts verified against the
answer); otherwise the CPU judge the settings name (`CPU_JUDGE`): the embedding judge
(`grader: "embedding"`), the combined judge (coach.grading.combined_judge, `grader: "combined"`)
or the trained key-point judge (coach.grading.point_judge, `grader: "trained"`); the embedding
judge answers if the key-point model cannot be loaded. The injection net
(coach.grading.injection) runs on every answer; how its verdict combines with each judge's
is said there."""

from __future__ import annotations

import asyncio
import functools
import logging
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from prometheus_client import Histogram

from coach.grading.cleaning import CleanAnswer, clean_answer
from coach.grading import injection
from coach.grading.embedding_judge import EmbeddingJudge, idf_corpus
from coach.grading.feedback import feedback_text, follow_up_question
from coach.grading.fit import GraderFit, load_fit, rubric_version
from coach.grading.point_model import ARTIFACT as POINT_MODEL
from coach.grading.models import Grade, GradeError, GradeResult, OffTopic, PointGrade, Suggestion, Verdicts
from coach.grading.scoring import score_verdicts
from content import Bite, Catalog

if TYPE_CHECKING:  # the pipeline stores through the progress service; it never needs it to grade
    from coach.progress.service import ProgressService

log = logging.getLogger(__name__)
# A grading's own time, after the admission queue (coach/grading/admission.py) and including any
# wait inside a grading worker, by the judge that graded it ("none": nothing was graded).
GRADING_SECONDS = Histogram("coach_grading_seconds", "Time to grade an answer or a follow-up, by judge", ["grader"],
                            buckets=(0.1, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 5.0, 10.0, 30.0))

EMPTY_MESSAGE = "That answer is empty. Say it the way you would out loud to an interviewer, then send it again."
SUGGESTIONS_SHOWN = 3  # off-topic: which bites did you mean; on topic: the runners-up


@dataclass(frozen=True)
class GradingOutcome:
    """A result plus what the store needs: how long it took and the cleaned text."""

    result: GradeResult
    latency_ms: int
    clean_text: str


class Grader:
    def __init__(
        self,
        catalog: Catalog,
        topics,
        embedding_judge: EmbeddingJudge,
        llm_judge=None,
        *,
        fit: GraderFit,
        max_chars: int = 4000,
        point_judge=None,
        llm_status=None,
        cpu_judge: str = "trained",
        embedding_pool=None,
        followup_reader=None,
    ):
        """`llm_status`: the served model's `Qualification`; its grades reach members only once it
        says qualified (default: qualifying, so an unchecked model never grades anyone).
        `cpu_judge`: how the trained model is used when `point_judge` is given: "trained" (its
        verdicts) or "combined" (coach.grading.combined_judge); without it the embedding judge,
        in `embedding_pool`'s worker processes when given (coach.grading.point_pool), else on a thread.
        `followup_reader`: reads interview follow-ups on the CPU (`read_point`), else the CPU judge does."""
        from coach.grading.qualification import Qualification

        self.catalog = catalog
        self.topics = topics
        self.embedding_judge = embedding_judge
        self.llm_judge = llm_judge
        self.point_judge = point_judge
        self.cpu_judge = cpu_judge
        self.embedding_pool = embedding_pool
        self.followup_reader = followup_reader
        self.fit = fit
        self.max_chars = max_chars
        self.llm_status = llm_status or Qualification("qualifying" if llm_judge is not None else "off")

    @classmethod
    def from_settings(cls, settings, catalog: Catalog, topics, llm=None, fit: GraderFit | None = None) -> "Grader":
        """`topics` is the process's TopicFinder (its embedder is shared); `llm` an LLMClient or None;
        `fit` the fitted numbers (default: the shipped artifact)."""
        from coach.grading.llm_judge import LLMJudge
        from retrieval.text import split_sentences

        fit = fit or load_fit()
        embedding_judge = EmbeddingJudge(topics.embedder, split_sentences, fit.thresholds, idf_corpus(catalog))
        llm_judge = LLMJudge(llm, max_tokens=settings.llm_max_tokens) if llm is not None and settings.llm_enabled else None
        uses_model = settings.cpu_judge != "embedding"
        followup = fit.followup_thresholds if POINT_MODEL.exists() else None
        pool = point_judge = None
        if uses_model:
            point_judge = load_point_judge(fit, topics.embedder, split_sentences, settings.grader_workers, followup)
        elif settings.grader_workers:
            from coach.grading.point_pool import PooledEmbeddingJudge

            pool = PooledEmbeddingJudge(fit.thresholds, idf_corpus(catalog), settings.grader_workers, followup,
                                        embedder=topics.embedder.options,
                                        warm=tuple(catalog.bites.values()) if settings.grader_warm_up else ())
        # The follow-up reader runs beside the CPU judge, in its worker processes when it has them.
        reader = next((j for j in (point_judge, pool) if hasattr(j, "read_point")), None) if followup else None
        if followup and reader is None:
            reader = inline_followup_reader(followup, split_sentences, topics.embedder.precision)
        return cls(catalog, topics, embedding_judge, llm_judge, fit=fit, max_chars=settings.answer_max_chars,
                   point_judge=point_judge, cpu_judge=settings.cpu_judge, embedding_pool=pool, followup_reader=reader)

    # --- public ----------------------------------------------------------------------

    async def warmed(self, timeout_s: float = 300.0) -> bool:
        """Wait (polling) until the grading workers have built every bite's reference vectors:
        their warm-up runs beside gradings, so only a caller that wants a warm bot waits for it.
        With several workers this asks whichever answers, so it is a good sign, not a proof."""
        wait = getattr(self.embedding_pool, "warmed", None)
        deadline = time.monotonic() + timeout_s
        while wait is not None and not await wait():
            if time.monotonic() > deadline:
                return False
            await asyncio.sleep(0.5)
        return True

    async def grade(self, answer: str, bite_id: str | None = None) -> GradeResult:
        return (await self.grade_timed(answer, bite_id)).result

    async def grade_timed(self, answer: str, bite_id: str | None = None, *, spoken=None) -> GradingOutcome:
        """`spoken`: a `coach.voice.SpokenAnswer` when the answer was said; `answer` is then its
        transcript, graded exactly like typed text, and the Grade carries input, transcript and delivery."""
        started = time.perf_counter()
        cleaned = clean_answer(answer if isinstance(answer, str) else "", self.max_chars)
        result = await self._grade_clean(cleaned, bite_id)
        if spoken is not None and isinstance(result, Grade):
            result = self._spoken(result, cleaned.text, spoken)
        elapsed = time.perf_counter() - started
        GRADING_SECONDS.labels(result.grader if isinstance(result, Grade) else "none").observe(elapsed)
        return GradingOutcome(result, round(elapsed * 1000), cleaned.text)

    async def grade_spoken(self, spoken, bite_id: str | None = None) -> GradeResult:
        """Grade a `coach.voice.SpokenAnswer` (its transcript, as the member confirmed it)."""
        return (await self.grade_timed(spoken.transcript, bite_id, spoken=spoken)).result

    async def grade_and_record(
        self, progress: ProgressService, user_id: int, guild_id: int, answer: str, bite_id: str | None = None,
        attempt_key: str | None = None, *, spoken=None,
    ) -> GradeResult:
        """Grade, then store the attempt through `progress` (`Coach.progress`, which keeps the text,
        typed or transcribed, only if the user allowed it; a spoken answer's delivery figures are stored with it; audio never is).
        An answer that explains another bite's concept is not stored against this one: the attempt
        and its XP go to the bite it is finally graded as ("Grade as" in the reply)."""
        outcome = await self.grade_timed(answer, bite_id, spoken=spoken)
        if isinstance(outcome.result, Grade) and not outcome.result.off_topic:
            grade = outcome.result
            await progress.record_attempt(
                user_id, guild_id, grade.bite_id, grade.score, grade.grader, outcome.latency_ms,
                outcome.clean_text, attempt_key=attempt_key,
                versions={"rubric_version": grade.rubric_version, "grader_version": grade.grader_version},
                delivery=grade.delivery.figures() if grade.delivery is not None else None,
            )
        return outcome.result

    @staticmethod
    def _spoken(grade: Grade, text: str, spoken) -> Grade:
        from coach.voice.answer import with_core_opening

        delivery = with_core_opening(spoken.delivery, text, grade)
        return grade.model_copy(update={"input": "voice", "transcript": text, "delivery": delivery})

    # --- steps -----------------------------------------------------------------------

    async def _grade_clean(self, cleaned: CleanAnswer, bite_id: str | None) -> GradeResult:
        if cleaned.empty:
            return GradeError(error="empty_answer", message=EMPTY_MESSAGE)
        if bite_id is not None:
            bite = self.catalog.bites.get(bite_id)
            if bite is None:
                return GradeError(error="unknown_bite", message=f"There is no bite called {bite_id!r}.")
        else:
            found = await asyncio.to_thread(self.topics.find, cleaned.text, SUGGESTIONS_SHOWN + 1)
            hits = [Suggestion(bite_id=h.bite_id, title=h.title, score=round(float(h.score), 4)) for h in found.results]
            if not found.on_topic or not hits:
                return OffTopic(suggestions=hits[:SUGGESTIONS_SHOWN])
            bite = self.catalog.bites[hits[0].bite_id]
        verdicts, grader = await self._verdicts(bite, cleaned)
        explains = await self._explains(bite, cleaned.text) if verdicts.off_topic and not verdicts.injection else ()
        grade = self._grade(bite, verdicts, grader, truncated=cleaned.truncated, explains=explains)
        if bite_id is None and not grade.off_topic:
            grade = grade.model_copy(update={"alternatives": tuple(hits[1:])})
        return grade

    async def grade_point(self, answer: str, bite_id: str, point: int) -> PointGrade | GradeError:
        """A follow-up answer judged against one key point of `bite_id` by the judge that grades
        whole answers, with its injection net and rules: the judge reads a copy of the bite that
        holds only that point and asks its follow-up question (the LLM the same prompt, fencing
        and schema, with one point). A list of terms or an injection earns the point nothing; a
        sure red flag is reported. The topic is not judged: a follow-up answers a narrower
        question than the bite's."""
        cleaned = clean_answer(answer if isinstance(answer, str) else "", self.max_chars)
        if cleaned.empty:
            return GradeError(error="empty_answer", message=EMPTY_MESSAGE)
        bite = self.catalog.bites.get(bite_id)
        if bite is None or not 0 <= point < len(bite.key_points):
            return GradeError(error="unknown_bite", message=f"There is no bite called {bite_id!r}.")
        reader = functools.partial(self._read_follow_up, bite, point, cleaned.text) if self.followup_reader else None
        started = time.perf_counter()
        verdicts, grader = await self._verdicts(follow_up_bite(bite, point), cleaned, reader)
        GRADING_SECONDS.labels(grader).observe(time.perf_counter() - started)
        verdict = verdicts.key_points[0]
        earned_nothing = verdicts.injection or verdicts.keyword_soup
        status = "missing" if earned_nothing and verdict.status in ("covered", "partial") else verdict.status
        return PointGrade(
            bite_id=bite.id, point=point, status=status, evidence=None if earned_nothing else verdict.evidence,
            red_flag=verdicts.red_flag, injection=verdicts.injection, keyword_soup=verdicts.keyword_soup,
            grader=grader, truncated=cleaned.truncated,
        )

    async def judged(self, answer: str, bite_id: str, *, judge: str) -> Grade:
        """`answer` graded against `bite_id` by one named judge, "llm" or "cpu", whatever the
        LLM's qualification: what qualification compares. The LLM's errors propagate."""
        bite, cleaned = self.catalog.bites[bite_id], clean_answer(answer, self.max_chars)
        text, net = cleaned.text, await self._net(cleaned)
        if judge == "llm":
            return self._grade(bite, await self._llm_verdicts(bite, text, net), "llm", truncated=False)
        verdicts, grader = await self._cpu_verdicts(bite, text, net)
        return self._grade(bite, verdicts, grader, truncated=False)

    def trust_llm(self, llm_judge=None) -> None:
        """Grade with `llm_judge` (default: the one it has) without qualification: only for the
        tools that measure a model (benchmarks, `coach grader compare`), never for members."""
        from coach.grading.qualification import Qualification

        self.llm_judge = llm_judge or self.llm_judge
        self.llm_status = Qualification("qualified", "trusted for measurement")

    @property
    def cpu_label(self) -> str:
        return self.cpu_judge if self.point_judge is not None else "embedding"

    async def _verdicts(self, bite: Bite, cleaned: CleanAnswer, cpu=None) -> tuple[Verdicts, str]:
        """The LLM's verdicts when it serves and answers, else the CPU judge's (`cpu(net)` when
        given: the follow-up reader). The judges read the cleaned text."""
        text, net = cleaned.text, await self._net(cleaned)
        if self.llm_judge is not None and self.llm_status.serves:
            from serving.errors import LLMError

            try:
                return await self._llm_verdicts(bite, text, net), "llm"
            except LLMError as error:
                log.warning("LLM grading failed (%s); falling back to the CPU grader", error)
        if cpu is not None:
            return await cpu(net)
        return await self._cpu_verdicts(bite, text, net)

    async def _net(self, cleaned: CleanAnswer) -> injection.InjectionCheck:
        """The injection net's reading of the answer and of what cleaning found hidden in it, off
        the event loop: in a grading worker when there is one."""
        text = cleaned.for_net
        pool = next((j for j in (self.embedding_pool, self.point_judge) if hasattr(j, "net")), None)
        if pool is not None:
            return await pool.net(text)
        return await asyncio.to_thread(injection.check, text)

    async def _read_follow_up(self, bite: Bite, point: int, text: str, net) -> tuple[Verdicts, str]:
        """A follow-up answer read by the key-point model against its one point
        (coach.grading.followup_reader); the injection net as on the trained judge's path."""
        verdict = await self.followup_reader.read_point(bite, point, text)
        attempt = await asyncio.to_thread(self.embedding_judge.attempt, text, net)
        return Verdicts(key_points=[verdict], red_flag=False, injection=attempt), "followup"

    async def _llm_verdicts(self, bite: Bite, text: str, net) -> Verdicts:
        llm = await self.llm_judge.judge(bite, text)
        return llm.model_copy(update={"injection": injection.with_model(net, llm.injection)})

    async def _cpu_verdicts(self, bite: Bite, text: str, net) -> tuple[Verdicts, str]:
        if self.cpu_label == "combined":
            from coach.grading import combined_judge

            return await combined_judge.verdicts(self.embedding_judge, self.point_judge, bite, text, net,
                                                 self.fit.short_words or 0), "combined"
        if self.point_judge is not None:
            verdicts = await self.point_judge.verdicts(bite, text)
            attempt = await asyncio.to_thread(self.embedding_judge.attempt, text, net)
            return verdicts.model_copy(update={"injection": attempt}), "trained"
        if self.embedding_pool is not None:
            return await self.embedding_pool.judge(bite, text, net), "embedding"
        return await asyncio.to_thread(self.embedding_judge.judge, bite, text, net), "embedding"

    async def _explains(self, bite: Bite, text: str) -> tuple[Suggestion, ...]:
        """The bites an answer judged to explain another concept seems to be about (best first)."""
        found = await asyncio.to_thread(self.topics.find, text, SUGGESTIONS_SHOWN + 1)
        return tuple(Suggestion(bite_id=h.bite_id, title=h.title, score=round(float(h.score), 4))
                     for h in found.results if h.bite_id != bite.id)[:SUGGESTIONS_SHOWN]

    def _grade(self, bite: Bite, verdicts: Verdicts, grader: str, *, truncated: bool,
               explains: tuple[Suggestion, ...] = ()) -> Grade:
        score = score_verdicts(verdicts, [p.kind for p in bite.key_points], self.fit.rule)
        explained = explains[0] if verdicts.off_topic and explains else None
        return Grade(
            bite_id=bite.id,
            title=bite.title,
            score=score,
            key_points=verdicts.key_points,
            red_flag=verdicts.red_flag,
            red_flag_possible=verdicts.red_flag_possible and not verdicts.red_flag,
            purpose=verdicts.purpose,
            injection=verdicts.injection,
            grader=grader,
            feedback=feedback_text(bite, verdicts, score=score, explains=explained),
            model_answer=bite.model_answer.strip(),
            follow_up=follow_up_question(bite, verdicts.key_points, self.catalog, injection=verdicts.injection),
            truncated=truncated,
            keyword_soup=verdicts.keyword_soup,
            off_topic=verdicts.off_topic,
            explains=explained,
            alternatives=explains if verdicts.off_topic else (),
            rubric_version=rubric_version(bite),
            grader_version=self._version(grader),
        )

    def close(self) -> None:
        """Stop the CPU judges' worker processes, if any."""
        if self.point_judge is not None:
            self.point_judge.close()
        if self.embedding_pool is not None:
            self.embedding_pool.close()

    def _version(self, grader: str) -> str:
        if grader == "llm":
            return self.llm_judge.version
        version = self.fit.version
        if grader in ("trained", "combined"):
            version = f"{version}:{self.fit.fitted_on.get('point_model', '')[:8]}"
        reader = self.embedding_judge.reader_version  # the CPU path's injection verdict depends on it
        return f"{version}+net:{reader}" if reader else version


def follow_up_bite(bite: Bite, point: int) -> Bite:
    """The bite as a follow-up asks it: its one key point, and the follow-up as the question
    (the LLM reads what was asked; the embedding judge discounts the question's own words)."""
    key_point = bite.key_points[point]
    return bite.model_copy(update={"key_points": (key_point,), "prompt": key_point.follow_up})


def inline_followup_reader(thresholds, split_sentences, precision: str = "auto"):
    """The follow-up reader on a thread of this process (no worker processes)."""
    from coach.grading.followup_reader import FollowUpReader
    from coach.grading.point_model import PointModel
    from coach.grading.point_pool import InlineFollowUpReader

    return InlineFollowUpReader(FollowUpReader(PointModel(POINT_MODEL, precision=precision), split_sentences,
                                                thresholds))


def load_point_judge(fit: GraderFit, embedder, split_sentences, workers: int = 0, followup=None):
    """The trained judge (in `workers` processes, or on a thread when 0), or None (logged) when
    the model or its fitted thresholds are missing: the embedding judge answers then."""
    from coach.grading.point_judge import PointJudge
    from coach.grading.point_model import ARTIFACT, PointModel
    from coach.grading.point_pool import InlinePointJudge, PooledPointJudge

    if fit.point_thresholds is None or not ARTIFACT.exists():
        log.warning("no trained key-point judge (%s); grading with the embedding judge", ARTIFACT.name)
        return None
    if workers:
        return PooledPointJudge(fit.point_thresholds, workers, followup, embedder=embedder.options)
    return InlinePointJudge(PointJudge(PointModel(ARTIFACT, precision=embedder.precision), split_sentences,
                                       fit.point_thresholds, embedder=embedder))
