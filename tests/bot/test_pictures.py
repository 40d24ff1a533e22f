"""The pictures as pure functions: fixed data in, a Figure whose artists match the data (bars,
tiles and calendar cells counted, not pixels), and a PNG that opens at the expected size —
for an empty history, a single answer and a year of it. Names in any script draw without
boxes or missing-glyph warnings. Then the worker pool: warm start, render, a timeout and a
dead worker cost one picture (not the ones waiting behind it), and shutdown leaves no process
behind."""

from __future__ import annotations

import asyncio
import dataclasses
import io
import logging
import os
import re
import time
import warnings
from collections import Counter
from datetime import date, timedelta

import pytest
from PIL import Image

from bot.pictures import bitemap, render, style
from bot.pictures.pool import PictureError, PicturePool
from coach.results import DueDay
from tests.bot import picture_data as data

STATS = {"empty": data.stats_empty, "single": data.stats_single, "year": data.stats_year}


def gids(fig, prefix):
    return [a.get_gid() for a in style.artists(fig, prefix)]


def png_of(fig) -> Image.Image:
    image = Image.open(io.BytesIO(style.png_bytes(fig)))
    assert image.format == "PNG"
    return image


@pytest.mark.parametrize("case", list(STATS))
def test_stats_picture_has_one_mark_per_week_day_and_bar(case):
    picture = STATS[case]()
    history = picture.history
    fig = render.figure(picture)
    assert len(gids(fig, "week:")) == len(history.weeks) == 12
    bars = {a.get_gid(): a.get_height() for a in style.artists(fig, "xp:")}
    assert bars == {f"xp:{w.start.isoformat()}": w.xp for w in history.weeks}
    due = {a.get_gid(): a.get_height() for a in style.artists(fig, "due:")}
    assert due == {f"due:{d.day.isoformat()}": d.count for d in history.due} and len(due) == 14
    cells = {a.get_gid().split(":")[1]: len(a.get_paths()) for a in style.artists(fig, "days:")}
    assert cells == {state: Counter(d.state for d in history.calendar)[state] for state in cells}
    assert sum(cells.values()) == len(history.calendar) == 84
    assert len(gids(fig, "today")) == 1
    assert png_of(fig).size == (1200, 1000)


def test_reviews_due_title_counts_the_bars_it_colours_up_to_the_seventh_day():
    # Issue #31: made on Wed 2 Dec, "0 today, 0 next 7 days" stood above a bar of 1 beside the
    # "Wed 9 Dec" label. One review due on the 7th day (Wed 9 Dec: counted), one on the 8th
    # (Thu 10 Dec: not), and the title must count exactly the bars drawn as counted.
    from matplotlib.colors import to_hex

    today = date(2026, 12, 2)
    counts = [0] * 14
    counts[7] = counts[8] = 1
    history = dataclasses.replace(data.stats_empty().history, today=today,
                                  due=tuple(DueDay(today + timedelta(days=i), n) for i, n in enumerate(counts)))
    picture = dataclasses.replace(data.stats_empty(), history=history)
    fig = render.figure(picture)
    title = next(t.get_text() for t in fig.texts if re.search(r"\d+ today, \d+", t.get_text()))
    in_title = sum(int(n) for n in re.search(r"(\d+) today, (\d+)", title).groups())
    colour = {a.get_gid(): to_hex(a.get_facecolor()) for a in style.artists(fig, "due:")}
    height = {a.get_gid(): a.get_height() for a in style.artists(fig, "due:")}
    counted = {gid for gid, c in colour.items() if c in (to_hex(style.BLUE), to_hex(style.SKY))}
    assert in_title == sum(height[gid] for gid in counted) == 1, (title, sorted(counted))
    assert "due:2026-12-09" in counted and "due:2026-12-10" not in counted
    assert title == "Due · 0 today, 1 more by Wed 9 Dec"
    assert gids(fig, "due-window:") == ["due-window:2026-12-09"], "a line between the 7th and the 8th day"
    assert "Reviews due: 0 today, 1 more by Wed 9 Dec, 1 after that up to Tue 15 Dec." in render.describe(picture)


def test_a_year_of_history_marks_its_freeze_days():
    picture = data.stats_year()
    fig = render.figure(picture)
    freezes = sum(d.state == "freeze" for d in picture.history.calendar)
    assert freezes and len(style.artists(fig, "days:freeze")[0].get_paths()) == freezes
    marks = [t for t in fig.findobj(lambda a: getattr(a, "get_text", None) and a.get_text() == "❄")]
    assert len(marks) == freezes


@pytest.mark.parametrize("bites, practised", [(49, 0.6), (49, 0.0), (1, 1.0), (3, 0.5)])
def test_bite_map_has_a_tile_per_bite_coloured_by_level(bites, practised):
    picture = data.map_data(bites=bites, practised=practised)
    fig = render.figure(picture)
    levels = Counter(b.level for b in picture.map.bites)
    tiles = {a.get_gid().split(":")[1]: len(a.get_paths()) for a in style.artists(fig, "tiles:")}
    assert {k: v for k, v in tiles.items() if v} == dict(levels)
    assert sorted(g.split(":")[1] for g in gids(fig, "title:")) == sorted(b.bite_id for b in picture.map.bites)
    assert gids(fig, "next:") == [f"next:{picture.map.next_bite_id}"]
    assert len(gids(fig, "group:")) == len({b.group for b in picture.map.bites})
    image = png_of(fig)
    assert image.size[0] == 1200 and image.size[1] > 300


def test_a_new_member_is_pointed_at_the_first_bite():
    picture = data.map_empty(bites=12)
    assert (picture.map.next_bite_id, picture.map.next_reason) == ("bite-00", "new")
    fig = render.figure(picture)
    assert len(style.artists(fig, "tiles:new")[0].get_paths()) == 12


def test_bite_map_layout_places_every_bite_once_within_the_columns():
    groups = [("big", tuple(f"b{i}" for i in range(14))), ("one", ("o",)), ("four", tuple("abcd")), ("two", ("x", "y"))]
    shelves = bitemap.layout(groups, columns=6)
    placed = [bite for shelf in shelves for block in shelf for bite in block.bite_ids]
    assert sorted(placed) == sorted(b for _, ids in groups for b in ids)
    assert all(sum(b.width for b in shelf) <= 6 for shelf in shelves)
    assert shelves[0] == [bitemap.Block("big", groups[0][1], 0, 6, 3)], "a big group takes whole rows"
    assert [[b.group for b in shelf] for shelf in shelves[1:]] == [["four", "two"], ["one"]], "biggest first"


@pytest.mark.parametrize("factory", [data.week_data, lambda: data.week_data(answered=False), data.week_empty])
def test_week_picture_has_a_bar_per_option_and_marks_the_right_one(factory):
    picture = factory()
    week = picture.week
    fig = render.figure(picture)
    posted = [d for d in week.days if d.posted]
    bars = {a.get_gid(): a.get_height() for a in style.artists(fig, "bar:")}
    expected = {f"bar:{d.day.isoformat()}:{i}:{'right' if i == d.correct_choice else 'wrong'}": n
                for d in posted for i, n in enumerate(d.counts)}
    assert bars == expected and sum(g.endswith(":right") for g in bars) == len(posted)
    assert sorted(gids(fig, "day:")) == sorted(f"day:{d.day.isoformat()}:{'posted' if d.posted else 'none'}"
                                               for d in week.days)
    missed = {a.get_gid(): a.get_width() for a in style.artists(fig, "missed:")}
    assert list(missed) == [f"missed:{m.bite_id}" for m in week.most_missed]
    assert list(missed.values()) == sorted(missed.values(), reverse=True), "bar lengths follow the misses"
    assert gids(fig, "leader:") == [f"leader:{r.user_id}" for r in week.leaders]
    assert png_of(fig).size == (1200, 960)


@pytest.mark.parametrize("name", [data.NAMES["cjk_emoji"], "Ṁïxëd ✓ 👍🏽 👨‍👩‍👧", "محمد علي", "प्रिया", "𝐁𝐨𝐥𝐝",
                                  "Z̷a̶l̴g̸o̵", "\u0301 ⃝ lone marks", "𓀀 unknown script"])
def test_display_names_in_any_script_draw_without_boxes_or_warnings(name, caplog):
    caplog.set_level(logging.WARNING, logger="matplotlib")
    for picture in (data.stats_single(name), data.map_data(name, bites=3), data.week_data(server=name)):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            png_of(render.figure(picture))
        glyph_warnings = [str(w.message) for w in caught if "Glyph" in str(w.message) or "font" in str(w.message)]
        assert glyph_warnings == [], glyph_warnings
    assert not [r for r in caplog.records if "findfont" in r.getMessage() or "Glyph" in r.getMessage()]


def test_safe_text_keeps_what_the_fonts_draw_and_replaces_the_rest():
    assert style.safe_text("さくら🌸 김") == "さくら🌸 김"
    assert style.safe_text("👍🏽 a\u200db\ufe0f") == "👍 ab", "modifiers, joiners and selectors are dropped"
    assert style.safe_text("𝐁𝐨𝐥𝐝 ＦＵＬＬ") == "Bold ＦＵＬＬ", "folded only when the fonts lack the original"
    assert style.safe_text("𓀀 x\x00y\tz\nw") == "? x?y z w"
    assert style.safe_text("\u0301start ⃝") == "start"
    assert style.safe_text("a" * 50, limit=10) == "a" * 9 + "…"


def test_dollar_signs_in_a_name_are_not_mathtext():
    name = data.NAMES["dollars"]
    fig = render.figure(data.week_data())
    shown = [t for t in fig.findobj(lambda a: getattr(a, "get_text", None) and name[:6] in (a.get_text() or ""))]
    assert shown and all(not t.get_parse_math() for t in shown)
    fig = render.figure(data.stats_single(name))
    title = [t for t in fig.texts if t.get_text().startswith("Progress · ")]
    assert title[0].get_text() == f"Progress · {name}" and not title[0].get_parse_math()
    png_of(fig)


def test_descriptions_say_what_the_pictures_show_within_discords_limit():
    year = render.describe(data.stats_year())
    assert year.startswith(f"Progress chart for {data.NAMES['cjk_emoji']} over the last 12 weeks.")
    assert "freeze day" in year and "Reviews due:" in year and len(year) <= 1024
    empty = render.describe(data.stats_empty())
    assert "No quiz answers in these weeks." in empty
    mapped = render.describe(data.map_data())
    assert "49 bites" in mapped and "Next to study" in mapped
    week = render.describe(data.week_data())
    assert "Most missed:" in week and "Leaderboard: 1. Ada 500 XP" in week and len(week) <= 1024
    long_week = data.week_data(server="x" * 900)
    assert len(render.describe(long_week)) == 1024


def test_scorecard_picture_has_a_chip_per_key_point_coloured_by_outcome_and_the_signal():
    from bot.pictures.models import ScorecardPicture
    from coach.interview.rules import QuestionCard, Scorecard

    first = QuestionCard("kv-cache", "The KV cache", 1, (("a point", "core", "landed"), ("b point", "core", "rescued"),
                                                          ("c point", "depth", "missed")), False, 1)
    second = QuestionCard("tail-latency", "Tail latency", 2, (("d point", "core", "wrong"), ("e point", "core", "partly")),
                          True, 2, True)
    unreached = QuestionCard("prefix-caching", "Prefix caching", None, (("f point", "core", "missed"),), False, 0)
    picture = ScorecardPicture(data.NAMES["cjk_emoji"], Scorecard((first, second, unreached), "lean_no", ()))
    fig = render.figure(picture)
    assert sorted(gids(fig, "chip:")) == sorted([
        "chip:0:0:landed", "chip:0:1:rescued", "chip:0:2:missed", "chip:1:0:wrong", "chip:1:1:partly"])
    assert gids(fig, "signal:") == ["signal:lean_no"]
    assert png_of(fig).size[0] == 1200
    words = render.describe(picture)
    assert "signal Lean no" in words and "Tail latency: first answer 2/4; 1 partly there, 1 stated wrongly. Red flag." in words
    assert "Prefix caching" not in words, "a question never reached is not described"


def test_the_same_data_gives_the_same_bytes():
    picture = data.stats_year()
    assert render.render(picture) == render.render(picture)


def test_the_samples_used_to_warm_up_render():
    for picture in render.samples():
        assert png_of(render.figure(picture)).size[0] == 1200


# ----- the worker pool ---------------------------------------------------------------------------

def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie (exited, not yet reaped) counts as gone
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split()[2] != "Z"
    except FileNotFoundError:
        return False


class Dies:
    """Unpickling this in a worker ends the worker process, as the OOM killer would."""

    def __reduce__(self):
        return (os._exit, (3,))


class Stuck:
    """Unpickling this in a worker holds the worker for a minute, as a stuck render would."""

    def __reduce__(self):
        return (time.sleep, (60,))


async def test_pool_starts_warm_renders_in_a_lower_priority_process_and_shuts_down_cleanly():
    pool = PicturePool(1, timeout_s=30)
    pool.start()
    (pid,) = await pool.ready()
    assert pid != os.getpid() and alive(pid)
    assert os.getpriority(os.PRIO_PROCESS, pid) >= os.getpriority(os.PRIO_PROCESS, 0) + 5
    pngs = await asyncio.gather(*(pool.render(p) for p in (data.stats_year(), data.map_data(), data.week_data())))
    assert [Image.open(io.BytesIO(png)).size[0] for png in pngs] == [1200] * 3
    await pool.close()
    assert not alive(pid)


async def test_a_timeout_or_a_dead_worker_costs_one_picture_and_the_pool_recovers():
    pool = PicturePool(1, timeout_s=30)
    try:
        (first,) = await pool.ready()
        pool.timeout_s = 0.001
        with pytest.raises(PictureError, match="longer than"):
            await pool.render(data.map_data())
        pool.timeout_s = 30
        assert await pool.render(data.stats_single())
        (second,) = await pool.ready()
        assert second != first and not alive(first), "the stuck worker was replaced"
        with pytest.raises(PictureError, match="died"):
            await pool.render(Dies())
        assert await pool.render(data.week_empty()), "a new worker draws the next picture"
        with pytest.raises(PictureError, match="no picture for"):
            await pool.render(timedelta(days=1))
    finally:
        await pool.close()


async def test_renders_waiting_behind_a_stuck_one_are_drawn_by_the_new_pool():
    """Five members ask for /stats at once and the first render sticks: its timeout discards
    the pool, and the renders still queued in it go to the new pool instead of being lost."""
    pool = PicturePool(1, timeout_s=2)
    try:
        await pool.ready()
        stuck = asyncio.ensure_future(pool.render(Stuck()))
        await asyncio.sleep(0)  # it has started waiting, with the 2 s timeout
        pool.timeout_s = 120
        queued = [asyncio.ensure_future(pool.render(d)) for d in (data.stats_single(), data.map_data(),
                                                                  data.week_empty(), data.stats_empty())]
        with pytest.raises(PictureError, match="longer than"):
            await stuck
        pngs = await asyncio.gather(*queued, return_exceptions=True)
        assert [type(png) for png in pngs] == [bytes] * 4, pngs  # no picture cancelled or refused
        assert [Image.open(io.BytesIO(png)).size[0] for png in pngs] == [1200] * 4
    finally:
        await pool.close()


@pytest.mark.parametrize("when", ["warm", "starting"])
def test_a_worker_ends_when_the_bot_is_killed(tmp_path, when):
    """SIGKILL gives the bot no chance to shut its pool down; its worker must not live on,
    whether it was warm or still starting up when the bot died."""
    import signal
    import subprocess
    import sys
    import time

    script = tmp_path / "a_bot.py"
    script.write_text(
        "import asyncio, sys\n"
        "from bot.pictures.pool import PicturePool\n"
        "async def main():\n"
        "    pool = PicturePool(1)\n"
        "    pool.start()\n"
        "    if sys.argv[1] == 'warm':\n"
        "        await pool.ready()\n"
        "    print(*pool._executor._processes, flush=True)\n"
        "    await asyncio.sleep(600)\n"
        "if __name__ == '__main__':\n"
        "    asyncio.run(main())\n")
    bot = subprocess.Popen([sys.executable, str(script), when], stdout=subprocess.PIPE, text=True,
                           cwd=os.getcwd(), env={**os.environ, "PYTHONPATH": os.getcwd()})
    try:
        worker_pid = int(bot.stdout.readline())
        assert alive(worker_pid)
    finally:
        bot.send_signal(signal.SIGKILL)
        bot.wait()
    deadline = time.monotonic() + 15
    while alive(worker_pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not alive(worker_pid)
