"""A spoken answer through the one grading pipeline (real model, real audio): the Grade says
input "voice" with its transcript and delivery; storage follows keep-answers; /forget erases the
delivery figures; the CLI's `grade --audio` and `transcribe`."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import select

from bot.cli.main import main
from coach.config import load_settings
from coach.engine import Coach
from coach.grading.models import Grade
from coach.migrations import head_revision
from coach.store.models import Attempt, DeliveryRow
from coach.voice.answer import InProcessSpeech, spoken_answer, transcribe_answer
from tests.coach.helpers import Clock
from tests.grading.test_pipeline import CONTRACT_KEYS
from tests.voice.conftest import AUDIO, audio

USER, GUILD = 4242, 77


@pytest.fixture(scope="module")
def kv_spoken(transcriber, shipped_catalog):
    import asyncio

    bite = shipped_catalog.bites["kv-cache"]
    return asyncio.run(transcribe_answer(InProcessSpeech(transcriber), audio("kv_cache.ogg"), bite))


async def test_a_spoken_answer_is_graded_by_the_same_pipeline(shipped_grader, kv_spoken):
    grade = await shipped_grader.grade_spoken(kv_spoken, "kv-cache")
    assert isinstance(grade, Grade) and grade.bite_id == "kv-cache" and grade.grader == "embedding"
    typed = await shipped_grader.grade(kv_spoken.transcript, "kv-cache")
    assert grade.score == typed.score and grade.key_points == typed.key_points  # the same grading
    assert grade.score >= 3, grade.key_points  # a strong answer, said out loud
    body = grade.to_json()
    assert set(body) == CONTRACT_KEYS
    assert body["input"] == "voice" and body["transcript"] == kv_spoken.transcript
    delivery = body["delivery"]
    assert 33 <= delivery["duration_s"] <= 36 and 25 <= delivery["speaking_s"] <= 35
    assert 120 <= delivery["wpm"] <= 175  # espeak-ng read it at 150 words a minute
    assert delivery["fillers"] == 0 and delivery["long_pauses"] == 0
    assert isinstance(delivery["opens_with_core_point"], bool) and delivery["notes"]


async def test_without_a_bite_retrieval_finds_it_from_the_transcript(shipped_grader, transcriber):
    heard = transcriber.transcribe(audio("paged_attention.mp3"))  # no hints: no bite known yet
    grade = await shipped_grader.grade_spoken(spoken_answer(heard))
    assert isinstance(grade, Grade) and grade.bite_id == "paged-attention" and grade.input == "voice"


async def test_a_corrected_transcript_is_what_gets_graded(shipped_grader, kv_spoken):
    fixed = kv_spoken.corrected(kv_spoken.transcript.replace("cash", "cache") + " Queries are not cached.")
    assert fixed.edited and fixed.delivery == kv_spoken.delivery
    grade = await shipped_grader.grade_spoken(fixed, "kv-cache")
    assert grade.transcript == fixed.transcript and grade.transcript.endswith("Queries are not cached.")


@pytest.mark.parametrize("keep", [False, True])
async def test_storage_follows_keep_answers_and_forget_erases_the_figures(store, shipped_catalog, shipped_grader,
                                                                           kv_spoken, keep):
    coach = Coach(store, shipped_catalog, load_settings(_env_file=None), clock=Clock(), rng_seed=1,
                  enable_fuzzing=False)
    await coach.account.update_settings(USER, keep_answers=keep)
    grade = await shipped_grader.grade_and_record(coach.progress, USER, GUILD, kv_spoken.transcript, "kv-cache",
                                                  spoken=kv_spoken)
    attempt = await store.run(lambda db: db.scalar(select(Attempt).where(Attempt.user_id == USER)))
    assert attempt.score == grade.score
    assert attempt.answer_text == (kv_spoken.transcript if keep else None)  # the transcript is an answer text
    row = await store.run(lambda db: db.scalar(select(DeliveryRow).where(DeliveryRow.attempt_id == attempt.id)))
    stored = {name: getattr(row, name) for name in grade.delivery.figures()}
    assert stored == pytest.approx(grade.delivery.figures())
    # No column anywhere holds the recording: the figures are numbers, the text is the transcript.
    assert all(not isinstance(v, bytes) for v in stored.values())

    if keep:
        await coach.account.update_settings(USER, keep_answers=False)  # turning it off erases the kept transcript
        assert await store.run(lambda db: db.scalar(select(Attempt.answer_text).where(Attempt.id == attempt.id))) is None
    assert await coach.account.forget(USER) >= 3
    assert await store.run(lambda db: db.scalar(select(DeliveryRow).where(DeliveryRow.user_id == USER))) is None


# --- the CLI ------------------------------------------------------------------------------------


@pytest.fixture
def cli_env(monkeypatch, shipped_topics, shipped_data_dir, tmp_path, transcriber):
    monkeypatch.setenv("DATA_DIR", str(shipped_data_dir))  # the index shipped_topics built
    monkeypatch.setenv("DATABASE_URL", f"sqlite+aiosqlite:///{tmp_path / 'coach.db'}")
    monkeypatch.setenv("LLM_ENABLED", "false")
    return monkeypatch


def test_cli_grade_audio_prints_the_grade_with_input_transcript_and_delivery(cli_env, capsys, transcriber):
    import bot.cli.voice

    cli_env.setattr(bot.cli.voice, "_speech", lambda settings: InProcessSpeech(transcriber))  # the warm model
    assert main(["grade", "--json", "--audio", str(AUDIO / "rambling_fillers.ogg"), "--bite", "kv-cache"]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    body = json.loads(out[-1])
    assert set(body) == CONTRACT_KEYS and body["bite_id"] == "kv-cache"
    assert body["input"] == "voice" and "values" in body["transcript"]
    assert body["delivery"]["fillers"] >= 8 and body["delivery"]["long_pauses"] == 2
    assert body["delivery"]["fillers_note"].startswith("at least")  # recognition drops some fillers
    assert 0 <= body["score"] <= 4

    assert main(["grade", "--audio", str(AUDIO / "rambling_fillers.ogg"), "--bite", "kv-cache"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("Transcript: ") and "The KV cache" in text and "/4" in text
    assert "Delivery: " in text and "at least" in text and "2 pauses of 2 s or more" in text


def test_cli_transcribe_loads_the_packaged_model_and_prints_the_transcript(cli_env, capsys):
    assert main(["transcribe", str(AUDIO / "gqa.wav"), "--bite", "gqa-mqa"]) == 0
    assert "query attention" in capsys.readouterr().out.lower()


@pytest.mark.parametrize("argv, message", [
    (["transcribe", str(AUDIO / "not_audio.ogg")], "couldn't read that file as audio"),
    (["grade", "--audio", str(AUDIO / "no_such_file.ogg")], "no such file"),
    (["grade", "--audio", str(AUDIO / "gqa.wav"), "typed too"], "not both"),
    (["grade"], "--audio FILE"),
])
def test_cli_refusals_go_to_stderr_with_exit_2(cli_env, capsys, argv, message):
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and message in captured.err


async def test_migration_0005_adds_and_removes_the_deliveries_table(empty_database_url, shipped_catalog):
    from sqlalchemy import inspect

    from coach.store.store import Store
    from tests.coach.store.test_faults import migrate

    figures = {"duration_s": 20.0, "speaking_s": 18.0, "words": 45, "wpm": 150.0, "fillers": 1,
               "fillers_per_min": 3.3, "long_pauses": 0, "longest_pause_s": 0.8, "opens_with_core_point": False}

    async def tables(store):
        async with store.engine.connect() as connection:
            return await connection.run_sync(lambda sync: set(inspect(sync).get_table_names()))

    async with Store(empty_database_url) as store:
        await store.upgrade()
        coach = Coach(store, shipped_catalog, load_settings(_env_file=None), clock=Clock(), rng_seed=1)
        await coach.progress.record_attempt(USER, GUILD, "kv-cache", 3, "embedding", 5, None, delivery=figures)
        await migrate(store, "downgrade", "0004")  # back: the figures go, the attempt stays
        assert "deliveries" not in await tables(store)
        assert await store.run(lambda db: db.scalar(select(Attempt.score))) == 3
        await store.upgrade()
        assert await store.current_revision() == head_revision() and "deliveries" in await tables(store)
        await coach.progress.record_attempt(USER, GUILD, "kv-cache", 2, "embedding", 5, None, delivery=figures)
        rows = await store.run(lambda db: db.execute(select(DeliveryRow.wpm, DeliveryRow.opens_with_core_point)))
        assert [tuple(r) for r in rows.all()] == [(150.0, False)]
