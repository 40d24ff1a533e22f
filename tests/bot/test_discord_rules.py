"""Discord's own rules, kept in bot/: the daily post's message nonce and discord.py's log level."""

from __future__ import annotations

import io
import logging
from datetime import date

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
