"""`coach stats --png OUT.png [--user ID --guild ID] [--map | --week]` as a process, on a
database with some history: each picture is written, opens at its size, and the text and
description printed beside it match the data."""

from __future__ import annotations

import asyncio
import io
import json
import os
import subprocess
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

import pytest
from PIL import Image

from coach.config import load_settings
from coach.engine import Coach
from coach.store import Store
from content import load_catalog

REPO = Path(__file__).parents[2]
TRACKS = REPO / "tests" / "e2e" / "tracks"
COACH = str(REPO / ".venv" / "bin" / "coach")
USER, GUILD, OTHER = 1, 1, 77
MONDAY = date(2026, 11, 23)


async def seed(url: str) -> None:
    """The console's user and one other member answer daily questions on Monday and
    Tuesday of the week of 23 Nov 2026 (Monday first: no schedule's week start)."""
    moment = datetime(2026, 11, 23, 10, 0, tzinfo=timezone.utc)
    store = Store(url)
    await store.upgrade()
    coach = Coach(store, load_catalog(TRACKS), load_settings(_env_file=None), clock=lambda: moment)
    await coach.daily.set_schedule(GUILD, 5, "09:00", "UTC", "inference", week_start=0)
    for offset in range(2):
        day = MONDAY + timedelta(days=offset)
        moment = datetime.combine(day, datetime.min.time(), tzinfo=timezone.utc) + timedelta(hours=10)
        pick = await coach.daily.pick_daily(GUILD, day)
        question = coach.catalog.questions[pick.question.question_id]
        right = pick.question.options.index(question.options[question.answer])
        await coach.daily.record_daily_answer(GUILD, day, USER, right)
        await coach.daily.record_daily_answer(GUILD, day, OTHER, (right + 1) % 4)
    await store.dispose()


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    folder = tmp_path_factory.mktemp("cli-stats")
    url = f"sqlite+aiosqlite:///{folder}/coach.db"
    asyncio.run(seed(url))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "DATABASE_", "LLM_"))}
    env.update(DATABASE_URL=url, DATA_DIR=str(folder), CONTENT_DIR=str(TRACKS), PYTHONPATH=str(REPO),
               HF_HUB_OFFLINE="1")
    return folder, env


def coach_stats(workspace, *args):
    folder, env = workspace
    done = subprocess.run([COACH, "stats", *args], capture_output=True, text=True, cwd=folder, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout


def image(path: Path) -> Image.Image:
    picture = Image.open(io.BytesIO(path.read_bytes()))
    assert picture.format == "PNG"
    return picture


@pytest.mark.timeout(600)
def test_progress_picture_for_the_console_user_by_default(workspace):
    folder, _ = workspace
    out = coach_stats(workspace, "--png", "progress.png")
    assert "== Your progress ==" in out and "Picture: progress.png" in out
    assert image(folder / "progress.png").size == (1200, 1000)


@pytest.mark.timeout(600)
def test_bite_map_and_week_for_a_chosen_member_and_server_as_json(workspace):
    folder, _ = workspace
    mapped = json.loads(coach_stats(workspace, "--png", "out/map.png", "--map", "--user", str(OTHER), "--json"))
    assert mapped["png"] == "out/map.png" and mapped["bytes"] == len((folder / "out" / "map.png").read_bytes())
    assert "Bite map of the Inference (test track) track for member 77" in mapped["description"]
    assert image(folder / "out" / "map.png").size[0] == 1200

    week = json.loads(coach_stats(workspace, "--png", "week.png", "--week", "--guild", str(GUILD),
                                  "--start", MONDAY.isoformat(), "--server", "Prep", "--json"))
    assert week["description"].startswith("Prep, the week of 23–29 Nov 2026: 4 answers.")
    assert "Monday: 2 answered the daily question" in week["description"]
    assert "Leaderboard: 1. you 20 XP" in week["description"], "the wrong answers earned nothing"
    assert "2 daily questions" in week["text"]
    assert image(folder / "week.png").size == (1200, 960)


def test_the_options_are_checked():
    done = subprocess.run([COACH, "stats", "--png", "x.png", "--map", "--week"], capture_output=True, text=True)
    assert done.returncode == 2 and "not allowed with" in done.stderr


def test_the_grader_commands_parse_every_option_their_code_reads():
    """`coach grader train` once read an option its parser did not define; later it offered
    `--followups`, whose training function had been removed (a crash when used)."""
    from bot.cli.main import build_parser

    args = build_parser().parse_args(["grader", "train", "--seed", "3"])
    assert (args.seed, args.epochs, args.out) == (3, None, None)
    with pytest.raises(SystemExit):
        build_parser().parse_args(["grader", "train", "--followups"])
