"""Voice-answer fixtures: the committed spoken recordings (tests/fixtures/audio, made by
make_fixtures.sh with espeak-ng; the tests need neither espeak nor a microphone) and ONE warm
in-process transcriber (the real tiny.en model) shared by the whole session."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

AUDIO = Path(__file__).resolve().parents[1] / "fixtures" / "audio"


@pytest.fixture(scope="session")
def audio_manifest() -> dict[str, dict]:
    items = json.loads((AUDIO / "fixtures.json").read_text())["fixtures"]
    return {item["file"]: item for item in items}


def audio(name: str) -> bytes:
    return (AUDIO / name).read_bytes()


@pytest.fixture(scope="session")
def transcriber():
    from serving.speech import SpeechOptions, Transcriber

    return Transcriber(SpeechOptions(threads=2))
