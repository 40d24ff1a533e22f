"""Discord's own rules, kept in bot/: the daily post's message nonce, discord.py's log level and
the voice-library warnings a bot without voice channels leaves out."""

from __future__ import annotations

import io
import logging
from datetime import date

import discord
from discord.voice_client import VoiceClient

from bot.discord.daily_poster import NONCE_MAX, post_nonce
from bot.process import configure_bot_logging
from coach.config import load_settings
from coach.logs import configure_logging
from coach.results import DailyPick, QuestionView


def pick(pick_id: int) -> DailyPick:
    question = QuestionView("q", "b", "Bite", "Stem?", ("a", "b", "c", "d"), 0, 1)
    return DailyPick(pick_id, 1, date(2026, 3, 2), "inference", "b", "Bite", question, False)


def test_a_posts_nonce_is_stable_per_pick_and_fits_discord():
    assert post_nonce(pick(7)) == post_nonce(pick(7)), "a retry of the same post carries the same nonce"
    assert post_nonce(pick(7)) != post_nonce(pick(8))
    assert len(post_nonce(pick(2**63 - 1))) <= NONCE_MAX  # the largest id the store can hand out


def test_the_bot_keeps_discord_py_to_warnings_and_the_coach_does_not_know_it():
    settings = load_settings(log_format="json", log_level="INFO", _env_file=None)
    root, chatty = logging.getLogger(), logging.getLogger("discord")
    saved = root.handlers[:], root.level, chatty.level
    try:
        chatty.setLevel(logging.NOTSET)
        configure_logging(settings, stream=io.StringIO())
        assert chatty.level == logging.NOTSET, "coach.logs leaves discord.py alone"
        stream = io.StringIO()
        configure_bot_logging(settings, stream=stream)
        logging.getLogger("discord.gateway").info("heartbeat acknowledged")
        logging.getLogger("discord.gateway").warning("shard is lagging")
        logging.getLogger("coach.bot").info("quiz started")
        output = stream.getvalue()
        assert "heartbeat" not in output and "shard is lagging" in output and "quiz started" in output
    finally:
        root.handlers[:] = saved[0]
        root.setLevel(saved[1])
        chatty.setLevel(saved[2])


def test_the_bot_leaves_out_discord_py_voice_library_warnings_and_keeps_its_others(monkeypatch):
    settings = load_settings(log_format="json", log_level="INFO", _env_file=None)
    root, client_log = logging.getLogger(), logging.getLogger("discord.client")
    saved = root.handlers[:], root.level, logging.getLogger("discord").level, client_log.filters[:]
    # As at a start without PyNaCl and davey (set here, so the test holds where they are installed
    # and after another test already made a Client: discord.py warns once per process).
    monkeypatch.setattr(VoiceClient, "warn_nacl", True)
    monkeypatch.setattr(VoiceClient, "warn_dave", True)
    try:
        stream = io.StringIO()
        configure_bot_logging(settings, stream=stream)
        configure_bot_logging(settings, stream=stream)  # configured twice: still one filter
        discord.Client(intents=discord.Intents.none())  # discord.py's own code path emits them here
        assert (VoiceClient.warn_nacl, VoiceClient.warn_dave) == (False, False), "the warnings were emitted"
        client_log.warning("Application has an interaction endpoint URL set, this means registered components "
                           "and app commands will not be received by the library.")
        logging.getLogger("discord.gateway").warning("Shard ID %s has stopped responding to the gateway.", None)
        output = stream.getvalue()
        assert "voice will NOT be supported" not in output and "PyNaCl" not in output and "davey" not in output
        assert "interaction endpoint URL" in output and "stopped responding" in output
        assert sum(type(f).__name__ == "VoiceLibraryWarnings" for f in client_log.filters) == 1
    finally:
        root.handlers[:] = saved[0]
        root.setLevel(saved[1])
        logging.getLogger("discord").setLevel(saved[2])
        client_log.filters[:] = saved[3]
