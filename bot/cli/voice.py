"""`coach transcribe FILE` and `coach grade --audio FILE [--bite ID] [--json]`: a recording through
local speech-to-text and, for `grade`, the one grading pipeline (coach/voice/answer.py, serving/speech.py).

The model runs in this process (one answer: no worker pool to spawn). A recording that cannot be
heard (too big, too long, unreadable, silent, not English) prints its polite message to stderr and
exits 2, like every other input the CLI refuses.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

from coach.config import load_settings


def _read(path: str, command: str) -> bytes | None:
    file = Path(path)
    if not file.is_file():
        print(f"coach {command}: no such file: {path}", file=sys.stderr)
        return None
    return file.read_bytes()


def _bite(catalog, bite_id: str | None, command: str):
    if bite_id is None:
        return None
    bite = catalog.bites.get(bite_id)
    if bite is None:
        print(f"coach {command}: there is no bite called {bite_id!r}", file=sys.stderr)
        raise SystemExit(2)
    return bite


def _speech(settings):
    from coach.voice.answer import InProcessSpeech, speech_options
    from serving.speech import Transcriber

    return InProcessSpeech(Transcriber(speech_options(settings)))


def delivery_lines(delivery) -> list[str]:
    from coach.voice.delivery import FILLERS_NOTE, LONG_PAUSE_SECONDS

    d = delivery
    figures = (f"Delivery: {d.speaking_s:.0f} s of speech (target {d.target_s} s), {d.wpm:.0f} words/min, "
               f"{d.fillers} fillers ({d.fillers_per_min:.1f}/min; {FILLERS_NOTE}), "
               f"{d.long_pauses} pauses of {LONG_PAUSE_SECONDS:.0f} s or more")
    lines = [figures]
    if d.opens_with_core_point is not None:
        lines.append("Opened with a core point." if d.opens_with_core_point else "The first sentence made no core point yet.")
    return lines + [f"  - {note}" for note in d.notes]


# --- coach transcribe ----------------------------------------------------------------------------


async def _transcribe(args, settings) -> int:
    from coach.voice.answer import transcribe_answer
    from content import default_catalog
    from serving.speech import SpeechError

    data = _read(args.file, "transcribe")
    if data is None:
        return 2
    bite = _bite(default_catalog(), args.bite, "transcribe") if args.bite else None
    try:
        spoken = await transcribe_answer(_speech(settings), data, bite)
    except SpeechError as error:
        print(f"coach transcribe: {error.user_message}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps({"transcript": spoken.transcript, "bite_id": spoken.bite_id,
                          "delivery": spoken.delivery.to_json(), "decode_s": spoken.decode_s}, ensure_ascii=False))
    else:
        print(spoken.transcript)
    return 0


def transcribe_command(args) -> int:
    return asyncio.run(_transcribe(args, load_settings()))


# --- coach grade --audio ---------------------------------------------------------------------------


async def _grade_audio(args, settings) -> int:
    from bot.cli.output import grade_text
    from coach.grading.models import Grade, GradeError
    from coach.grading.runtime import open_grader
    from coach.voice.answer import transcribe_answer
    from content import default_catalog
    from serving.speech import SpeechError

    data = _read(args.audio, "grade")
    if data is None:
        return 2
    catalog = default_catalog()
    bite = _bite(catalog, args.bite, "grade")
    # Transcribe in a thread while the grader loads its models: the two overlap.
    heard = asyncio.create_task(transcribe_answer(_speech(settings), data, bite))
    await asyncio.sleep(0)  # let the task hand the recording to its thread before the loading blocks
    async with open_grader(settings, catalog=catalog) as grader:
        try:
            spoken = await heard
        except SpeechError as error:
            print(f"coach grade: {error.user_message}", file=sys.stderr)
            return 2
        result = await grader.grade_spoken(spoken, args.bite)
    if isinstance(result, GradeError):
        print(f"coach grade: {result.message}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(result.to_json(), ensure_ascii=False))
        return 0
    print(f"Transcript: {spoken.transcript}\n")
    print(grade_text(result))
    if isinstance(result, Grade) and result.delivery is not None:
        print("\n" + "\n".join(delivery_lines(result.delivery)))
    return 0


def grade_audio_command(args) -> int:
    if args.answer is not None:
        print("coach grade: give either ANSWER or --audio FILE, not both", file=sys.stderr)
        return 2
    return asyncio.run(_grade_audio(args, load_settings()))
