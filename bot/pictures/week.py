"""The server's week: each day's daily question (a bar per option, the right one marked),
the most-missed bites, and the top of the leaderboard."""

from __future__ import annotations

from bot.pictures import style as s
from bot.pictures.models import WeekPicture

LETTERS = "ABCD"
RIGHT_MARK = "✓"


def _span(week) -> str:
    start, end = week.start, week.end
    if start.month == end.month:
        return f"{start.day}–{end.day} {end:%b %Y}"
    return f"{start.day} {start:%b} – {end.day} {end:%b %Y}"


def build_figure(data: WeekPicture):
    """The Figure for a server's week (not yet rendered). What tests count: each option's bar
    `bar:<date>:<option>:right|wrong`, each day `day:<date>:posted|none`, `missed:<bite id>`
    and `leader:<user id>` bars."""
    week = data.week
    fig = s.new_figure(9.6)
    s.put(fig, 0.04, 0.955, f"{data.server} · the week of {_span(week)}", s.TITLE_PT, weight="bold", va="center",
          limit=60)
    posted = [d for d in week.days if d.posted]
    answered = sum(d.total for d in posted)
    right = sum(d.counts[d.correct_choice] for d in posted if d.total and 0 <= d.correct_choice < len(d.counts))
    line = f"{week.answers} answers this week   ·   {len(posted)} daily question{'s' if len(posted) != 1 else ''}"
    if answered:
        line += f"   ·   {100 * right / answered:.0f}% of daily answers right"
    s.put(fig, 0.04, 0.905, line, s.HEADLINE_PT, s.MUTED, va="center")

    days = fig.add_gridspec(1, 7, left=0.04, right=0.97, top=0.715, bottom=0.47, wspace=0.18)
    s.put(fig, 0.04, 0.84, "Each day's question: how the server answered", s.PANEL_PT, va="bottom")
    for index, day in enumerate(week.days):
        _day_panel(fig.add_subplot(days[0, index]), day)
    lower = fig.add_gridspec(1, 2, left=0.04, right=0.97, top=0.36, bottom=0.04, wspace=0.12)
    _missed_panel(fig.add_subplot(lower[0, 0]), week.most_missed)
    _leaders_panel(fig.add_subplot(lower[0, 1]), week.leaders, data.names)
    return fig


def _day_panel(ax, day) -> None:
    ax.set_facecolor(s.CARD)
    for side in ("top", "right", "left"):
        ax.spines[side].set_visible(False)
    ax.spines["bottom"].set_color(s.GRID)
    ax.set_yticks([])
    ax.tick_params(colors=s.MUTED, labelsize=s.LABEL_PT, length=0, pad=4)
    ax.text(0.5, 1.22, f"{day.day:%a} {day.day.day}", transform=ax.transAxes, ha="center", va="bottom",
            fontsize=s.LABEL_PT, color=s.INK, weight="bold", parse_math=False)
    options = len(day.counts) if day.posted else 4
    ax.set_xlim(-0.6, options - 0.4)
    ax.set_xticks(range(options), labels=list(LETTERS[:options]))
    ax.plot([], [], gid=f"day:{day.day.isoformat()}:{'posted' if day.posted else 'none'}")
    if not day.posted:
        ax.set_ylim(0, 1)
        ax.text(0.5, 0.45, "no\nquestion", transform=ax.transAxes, ha="center", va="center", fontsize=s.LABEL_PT,
                color=s.MUTED, parse_math=False)
        return
    top = max(day.counts) if day.total else 1
    ax.set_ylim(0, top * 1.45)
    colours = [s.GREEN if i == day.correct_choice else s.WRONG_BAR for i in range(options)]
    bars = ax.bar(range(options), day.counts, color=colours, width=0.78)
    for i, bar in enumerate(bars):
        bar.set_gid(f"bar:{day.day.isoformat()}:{i}:{'right' if i == day.correct_choice else 'wrong'}")
        if not day.total:
            continue
        label = f"{day.counts[i]}" + (f"\n{RIGHT_MARK}" if i == day.correct_choice else "")
        ax.text(i, day.counts[i] + top * 0.04, label, ha="center", va="bottom", fontsize=s.LABEL_PT,
                color=s.GREEN if i == day.correct_choice else s.MUTED, parse_math=False, linespacing=0.95,
                weight="bold" if i == day.correct_choice else "normal",
                family=s.fonts().for_text(RIGHT_MARK))
    for i, label in enumerate(ax.get_xticklabels()):
        if i == day.correct_choice:
            label.set_color(s.GREEN)
            label.set_fontweight("bold")
    share = f"{100 * day.counts[day.correct_choice] / day.total:.0f}% right" if day.total else "no answers"
    ax.text(0.5, 1.08, share, transform=ax.transAxes, ha="center", va="bottom", fontsize=s.LABEL_PT, color=s.MUTED,
            parse_math=False)


def _hbars(ax, rows, colour, gid_prefix, empty_text: str) -> None:
    """Horizontal bars, one per row of (key, label, value, value_text), largest at the top."""
    ax.set_facecolor(s.CARD)
    ax.set_axis_off()
    n = max(len(rows), 1)
    ax.set_ylim(n, 0)
    ax.set_xlim(0, 1)
    if not rows:
        s.put(ax, 0.0, 0.2, empty_text, s.LABEL_PT, s.MUTED, va="center")
        return
    top = max(value for _, _, value, _ in rows) or 1
    for i, (key, label, value, value_text) in enumerate(rows):
        s.put(ax, 0.0, i + 0.08, label, s.LABEL_PT, s.INK, va="top", limit=36)
        width = 0.72 * value / top
        bar = ax.barh(i + 0.7, width, height=0.34, color=colour, left=0)[0]
        bar.set_gid(f"{gid_prefix}:{key}")
        ax.text(width + 0.02, i + 0.7, value_text, va="center", ha="left", fontsize=s.LABEL_PT, color=s.INK,
                parse_math=False)


def _missed_panel(ax, missed) -> None:
    s.put(ax.figure, ax.get_subplotspec().get_position(ax.figure).x0, 0.38, "Most missed bites", s.PANEL_PT,
          va="bottom")
    rows = [(m.bite_id, m.title, m.wrong, f"{m.wrong} of {m.answered} wrong") for m in missed]
    _hbars(ax, rows, s.VERMILLION, "missed", "Nobody missed anything this week.")


def _leaders_panel(ax, leaders, names) -> None:
    s.put(ax.figure, ax.get_subplotspec().get_position(ax.figure).x0, 0.38, "Top of the leaderboard", s.PANEL_PT,
          va="bottom")
    rows = [(r.user_id, f"{r.rank}. {names.get(r.user_id) or 'a member'}", r.xp, f"{r.xp:,} XP") for r in leaders]
    _hbars(ax, rows, s.BLUE, "leader", "No XP earned this week.")


def describe(data: WeekPicture) -> str:
    week = data.week
    parts = [f"{data.server}, the week of {_span(week)}: {week.answers} answers."]
    for day in week.days:
        if not day.posted:
            continue
        if day.total:
            spread = ", ".join(f"{LETTERS[i]} {n}" for i, n in enumerate(day.counts))
            parts.append(f"{day.day:%A}: {day.total} answered the daily question ({spread}); "
                         f"the right answer was {LETTERS[day.correct_choice]}.")
        else:
            parts.append(f"{day.day:%A}: nobody answered the daily question.")
    if week.most_missed:
        parts.append("Most missed: " + "; ".join(f"{m.title} ({m.wrong} of {m.answered} wrong)"
                                                 for m in week.most_missed) + ".")
    if week.leaders:
        parts.append("Leaderboard: " + "; ".join(f"{r.rank}. {data.names.get(r.user_id) or 'a member'} {r.xp} XP"
                                                 for r in week.leaders) + ".")
    return " ".join(parts)
