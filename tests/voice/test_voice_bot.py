"""The bot's voice pieces below Discord: what is refused before a download, the voice custom
ids, the delivery line under a grade and the delivery trend of /stats (read from the store on
SQLite and PostgreSQL)."""

from types import SimpleNamespace

import pytest

from bot import custom_ids as ids
from bot.render.limits import problems
from bot.render.replies import Embed, Reply
from bot.handlers.voice import Recording, VoiceHandlers
from bot.render.voice import delivery_field, fix_modal, with_delivery_history
from coach.config import load_settings
from coach.voice.delivery import Delivery
from coach.voice.history import delivery_history
from coach.engine import Coach
from tests.coach.helpers import Clock

USER = 5151


def recording(content_type, size=50_000, duration=None) -> Recording:
    async def fetch():
        raise AssertionError("a refused recording is never downloaded")

    return Recording("answer", size, content_type, duration, fetch)


@pytest.fixture(scope="module")
def voice_handlers():
    handlers = SimpleNamespace(services=SimpleNamespace(settings=load_settings(_env_file=None)), catalog=None)
    return VoiceHandlers(handlers)


@pytest.mark.parametrize("content_type", [None, "audio/ogg", "audio/mpeg", "audio/x-wav", "video/mp4",
                                          "video/webm; codecs=opus", "application/ogg", "application/octet-stream"])
def test_audio_and_unknown_types_go_on_to_the_decoder(voice_handlers, content_type):
    assert voice_handlers.refusal(recording(content_type)) is None


@pytest.mark.parametrize("content_type", ["image/png", "text/plain", "application/pdf"])
def test_other_types_are_refused_by_name(voice_handlers, content_type):
    message, code = voice_handlers.refusal(recording(content_type))
    assert code == "not_audio" and content_type in message and "voice message" in message


def test_size_and_a_declared_duration_are_checked_against_the_settings(voice_handlers):
    settings = voice_handlers.services.settings
    assert voice_handlers.refusal(recording("audio/ogg", size=settings.speech_max_bytes + 1))[1] == "too_large"
    assert voice_handlers.refusal(recording("audio/ogg", duration=settings.speech_max_seconds + 1))[1] == "too_long"
    assert voice_handlers.refusal(recording("audio/ogg", duration=settings.speech_max_seconds)) is None


def test_voice_ids_round_trip_and_fit():
    token = "0123456789ab"
    assert ids.decode(ids.voice_grade(token)).fields == {"token": token, "bite": None}
    longest = ids.voice_grade(token, "a" * 20 + "-b" * 15)
    assert ids.decode(longest).bite.startswith("a") and len(longest) <= ids.MAX_LENGTH
    assert ids.decode(ids.voice_fix(token)).action == "voice_fix"
    assert ids.decode(ids.voice_modal(token)).action == "voice_modal"
    assert ids.decode("vg:0123:-") is None, "a token is 12 hex digits"


DELIVERY = Delivery(duration_s=70.0, speaking_s=64.0, words=150, wpm=141.0, fillers=5, fillers_per_min=4.7,
                    filler_counts={"um/uh": 4, "like": 1}, long_pauses=1, longest_pause_s=2.6,
                    opens_with_core_point=False, notes=("5 fillers a minute: pause silently instead.",))


def test_the_delivery_line_is_compact_and_says_the_filler_count_is_a_floor():
    field = delivery_field(DELIVERY)
    assert field.value.splitlines()[0] == "🕒 64 s of speech (target 60 s) · 141 words/min · 1 pause of 2 s+"
    assert "4.7/min (5 heard; a floor" in field.value and "no core point yet" in field.value
    assert field.value.endswith("• 5 fillers a minute: pause silently instead.") and len(field.value) < 1024


def test_the_fix_modal_is_prefilled_within_discords_cap():
    modal = fix_modal("0123456789ab", "word " * 1200).modal
    (box,) = modal.inputs
    assert box.value.startswith("word word") and len(box.value) <= 4000 and box.max_length == 4000
    assert ids.decode(modal.custom_id).token == "0123456789ab"


async def test_delivery_history_over_time(store, shipped_catalog):
    clock = Clock()
    coach = Coach(store, shipped_catalog, load_settings(_env_file=None), clock=clock, rng_seed=1,
                  enable_fuzzing=False)
    empty = await delivery_history(store, USER)
    assert empty.answers == 0 and empty.first is None
    assert with_delivery_history(Reply(embed=Embed(title="Your progress")), empty).embed.fields == ()

    for day, (fillers, core) in enumerate([(6.0, False), (4.0, None), (2.5, True), (1.0, True)]):
        figures = {**DELIVERY.figures(), "fillers_per_min": fillers, "opens_with_core_point": core}
        await coach.progress.record_attempt(USER, 1, "kv-cache", 3, "embedding", 5, None, delivery=figures)
        await coach.progress.record_attempt(USER, 1, "kv-cache", 3, "embedding", 5, "typed")  # no figures: not counted
        clock.advance(days=1)
    history = await delivery_history(store, USER, recent=3)
    assert history.answers == 4 and [p.fillers_per_min for p in history.recent] == [1.0, 2.5, 4.0]
    assert history.first.fillers_per_min == 6.0 and history.recent[0].bite_id == "kv-cache"
    assert history.opened_with_core_point == (2, 2)

    reply = with_delivery_history(Reply(embed=Embed(title="Your progress")), history)
    (field,) = reply.embed.fields
    assert field.value.startswith("4 voice answers; the latest first:")
    assert "fillers 6.0 → 1.0/min" in field.value and "Opened with a core point: 2 of the last 2." in field.value
    assert problems(reply) == []
