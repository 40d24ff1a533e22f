"""Voice answers below any adapter: which words to listen for (from the bite), the transcription
(in the speech pool, `serving.speech`), the delivery figures, and the spoken answer handed to the
one grading pipeline (`Grader.grade_spoken`).

The flow the adapters follow: `transcribe_answer` -> show the transcript (the member may fix it:
`SpokenAnswer.corrected`) -> `Grader.grade_spoken` / `grade_and_record(..., spoken=...)`.
Audio bytes are never stored; the transcript is stored like a typed answer (only when the member
keeps answers); the delivery figures are stored with the attempt.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass, replace
from typing import Protocol, Sequence

from coach.voice.delivery import Delivery, analyze, opens_with_core_point
from content import Bite

MAX_HINTS = 10
# Acronyms and coined names the speech model would otherwise spell as common words ("KV" ->
# "cave", "vLLM" -> "VLM"): two or more capitals (KV, GQA, TTFT, FLOPs), or a capital after a
# lower-case letter (vLLM, PagedAttention).
_TERM = re.compile(r"\b(?:[A-Za-z]*[A-Z][A-Za-z0-9]*[A-Z][A-Za-z0-9]*|[a-z]+[A-Z][A-Za-z0-9]*)\b")
_ARTICLE = re.compile(r"^(?:the|a|an)\s+", re.IGNORECASE)


def bite_hints(bite: Bite, limit: int = MAX_HINTS) -> list[str]:
    """The words to bias transcription toward: the bite's title, then the terms its title,
    summary, key points and explainer use, in order of first use (bench.speech measures the gain)."""
    hints = [_ARTICLE.sub("", bite.title).strip()]
    seen = {hints[0].lower()}
    for text in (bite.title, bite.summary, *bite.point_texts, bite.explainer, bite.model_answer):
        for term in _TERM.findall(text):
            key = term.lower().rstrip("s")
            if len(hints) >= limit:
                return hints
            if key not in seen:
                seen.add(key)
                hints.append(term)
    return hints


class Speech(Protocol):
    """What transcribes: `serving.speech.SpeechPool`, or `InProcessSpeech` for the CLI."""

    async def transcribe(self, data: bytes, hints: Sequence[str] = ()): ...


class InProcessSpeech:
    """A Transcriber in this process behind the pool's async interface (the CLI: one answer,
    no worker to spawn)."""

    def __init__(self, transcriber):
        self.transcriber = transcriber

    async def transcribe(self, data: bytes, hints: Sequence[str] = ()):
        return await asyncio.to_thread(self.transcriber.transcribe, data, hints)


@dataclass(frozen=True)
class SpokenAnswer:
    """A transcribed answer ready to grade. `transcript` is what gets graded (the member may
    correct it); `delivery` comes from the recording's word timings and does not change."""

    transcript: str
    delivery: Delivery
    heard: str  # the transcript as the model wrote it
    bite_id: str | None = None  # the bite whose terms biased the transcription, if any
    decode_s: float = 0.0

    def corrected(self, text: str) -> "SpokenAnswer":
        return replace(self, transcript=" ".join(text.split()))

    @property
    def edited(self) -> bool:
        return self.transcript != self.heard


def spoken_answer(transcript, bite_id: str | None = None) -> SpokenAnswer:
    """From a `serving.speech.Transcript` (text, timed words, duration)."""
    return SpokenAnswer(
        transcript=transcript.text, delivery=analyze(transcript.words, transcript.duration_s),
        heard=transcript.text, bite_id=bite_id, decode_s=transcript.decode_s,
    )


async def transcribe_answer(speech: Speech, audio: bytes, bite: Bite | None = None) -> SpokenAnswer:
    """Transcribe a recording, biased toward `bite`'s terms when the bite is known. Raises
    `serving.speech.SpeechError` (each with a `user_message`) for anything that cannot be heard."""
    hints = bite_hints(bite) if bite is not None else []
    transcript = await speech.transcribe(audio, hints)
    return spoken_answer(transcript, bite.id if bite is not None else None)


def with_core_opening(delivery: Delivery, transcript: str, grade) -> Delivery:
    """Fill `opens_with_core_point` from the grade: did the first sentence carry a credited core point?"""
    evidence = [kp.evidence for kp in grade.key_points
                if kp.kind == "core" and kp.status in ("covered", "partial") and kp.evidence]
    return delivery.model_copy(update={"opens_with_core_point": opens_with_core_point(transcript, evidence)})


# --- building the speech side from the settings -----------------------------------------------------


def speech_options(settings):
    """The one way to turn the settings into `serving.speech.SpeechOptions` (bot, CLI, bench)."""
    from serving.speech import SpeechLimits, SpeechOptions

    return SpeechOptions(
        model_dir=str(settings.speech_model_path) if settings.speech_model_path else None,
        threads=settings.speech_threads, beam_size=settings.speech_beam_size,
        limits=SpeechLimits(max_bytes=settings.speech_max_bytes, max_seconds=settings.speech_max_seconds),
    )


def speech_pool(settings):
    """A `serving.speech.SpeechPool` as the settings say (not started: call `.start()`, which blocks
    until every worker has its model loaded)."""
    from serving.speech import SpeechPool

    return SpeechPool(speech_options(settings), workers=settings.speech_workers, queue=settings.speech_queue,
                      timeout_s=settings.speech_timeout_s)
