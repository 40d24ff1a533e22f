"""`/stats` as a picture: quiz accuracy and explanation scores by week, the streak calendar
with freeze days marked, XP per week, and reviews due in the coming days."""

from __future__ import annotations

import math

from bot.pictures import style as s
from bot.pictures.models import StatsPicture
from coach.history.rules import due_soon

ROWS = ("Mon", "", "Wed", "", "Fri", "", "Sun")
CALENDAR_COLOURS = {"active": s.BLUE, "freeze": s.SKY, "missed": s.EMPTY, "future": s.CARD}
FREEZE_MARK = "❄"
DUE_LATER = s.WRONG_BAR  # neutral grey: reviews due after the window the panel's title counts


def _short(day) -> str:
    return f"{day.day} {day:%b}"


def _day(day) -> str:
    return f"{day:%a} {_short(day)}"


def build_figure(data: StatsPicture):
    """The Figure for a member's progress (not yet rendered). Artists carry gids tests count:
    `week:<date>` (one accuracy/score point pair per week), `days:<state>` (the calendar's
    cells of each state, one collection each), `today`, `xp:<date>` and `due:<date>` (bars)."""
    fig = s.new_figure(10.0)
    stats, history = data.stats, data.history
    s.put(fig, 0.04, 0.95, f"Progress · {data.name}", s.TITLE_PT, weight="bold", va="center", limit=48)
    accuracy = f"{100 * stats.correct / stats.answered:.0f}% right" if stats.answered else "no answers yet"
    headline = (f"{stats.xp_total:,} XP   ·   {stats.streak}-day streak   ·   {accuracy}   ·   "
                f"{stats.reviews_due} review{'s' if stats.reviews_due != 1 else ''} due")
    s.put(fig, 0.04, 0.895, headline, s.HEADLINE_PT, s.MUTED, va="center")

    grid = fig.add_gridspec(2, 2, left=0.075, right=0.94, top=0.76, bottom=0.06, hspace=0.55, wspace=0.3)
    _accuracy_panel(fig.add_subplot(grid[0, 0]), history)
    _calendar_panel(fig.add_subplot(grid[0, 1]), history, stats.streak_at_risk)
    _xp_panel(fig.add_subplot(grid[1, 0]), history)
    _due_panel(fig.add_subplot(grid[1, 1]), history)
    return fig


def _week_ticks(ax, weeks) -> None:
    last = len(weeks) - 1
    ticks = sorted({0, *range(last % 4, last, 4)} | {last}) if last else [0]
    ticks = [t for t in ticks if t == last or last - t >= 2]
    ax.set_xticks(ticks, labels=["this week" if t == last else _short(weeks[t].start) for t in ticks])


def _accuracy_panel(ax, history) -> None:
    s.style_axes(ax)
    weeks = history.weeks
    xs = range(len(weeks))
    accuracy = [100 * w.accuracy if w.accuracy is not None else math.nan for w in weeks]
    scores = [w.mean_score if w.mean_score is not None else math.nan for w in weeks]
    s.panel_title(ax, "Accuracy and explanations", gap=0.06)
    ax.set_ylim(0, 105)
    ax.set_xlim(-0.5, len(weeks) - 0.5)
    ax.set_yticks([0, 50, 100], labels=["0%", "50%", "100%"])
    _week_ticks(ax, weeks)
    twin = ax.twinx()
    twin.set_ylim(0, 4.2)
    twin.set_yticks([0, 2, 4])
    twin.tick_params(colors=s.VERMILLION, labelsize=s.LABEL_PT, length=0)
    for side in ("top", "right", "left", "bottom"):
        twin.spines[side].set_visible(False)
    ax.tick_params(axis="y", colors=s.BLUE)
    line, = ax.plot(xs, accuracy, color=s.BLUE, marker="o", markersize=10, linewidth=3, label="quiz % right")
    dashed, = twin.plot(xs, scores, color=s.VERMILLION, marker="s", markersize=10, linewidth=3, linestyle="--",
                        label="explanations, of 4")
    for i, week in enumerate(weeks):  # one invisible marker per week: what the structure test counts
        ax.plot([i], [0], alpha=0, gid=f"week:{week.start.isoformat()}")
    ax.legend(handles=[line, dashed], loc="lower left", bbox_to_anchor=(-0.02, 1.0), ncol=2, frameon=False,
              prop={"family": s.fonts().for_text(FREEZE_MARK), "size": s.LABEL_PT}, handlelength=2.0, borderaxespad=0.1,
              columnspacing=1.2, handletextpad=0.5)
    if all(math.isnan(a) for a in accuracy) and all(math.isnan(v) for v in scores):
        s.put(ax, 0.5, 0.5, "Nothing answered in these weeks yet.\nStart with /quiz or /explain.", s.LABEL_PT,
              s.MUTED, ha="center", va="center", transform=ax.transAxes)


def _calendar_panel(ax, history, at_risk: bool) -> None:
    from matplotlib.collections import PatchCollection
    from matplotlib.patches import Patch, Rectangle

    ax.set_facecolor(s.CARD)
    ax.set_axis_off()
    title = f"Streak: {history.streak} day{'s' if history.streak != 1 else ''}" + ("  (at risk today)" if at_risk else "")
    s.panel_title(ax, title, gap=0.06)
    n_weeks = len(history.calendar) // 7
    ax.set_xlim(-1.3, n_weeks + 0.05)
    ax.set_ylim(7.9, -0.05)
    ax.set_aspect("equal")
    ax.set_anchor("NW")
    cells: dict[str, list] = {state: [] for state in CALENDAR_COLOURS}
    for index, day in enumerate(history.calendar):
        col, row = divmod(index, 7)
        cells[day.state].append(Rectangle((col + 0.07, row + 0.07), 0.86, 0.86))
        if day.state == "freeze":
            s.put(ax, col + 0.5, row + 0.53, FREEZE_MARK, 15, s.INK, ha="center", va="center")
        if day.day == history.today:
            ax.add_patch(Rectangle((col + 0.07, row + 0.07), 0.86, 0.86, facecolor="none", edgecolor=s.INK,
                                   linewidth=3, gid="today"))
    # One collection per state (one artist each: far quicker to draw than a patch per day).
    for state, rects in cells.items():
        future = state == "future"
        ax.add_collection(PatchCollection(rects, facecolor=CALENDAR_COLOURS[state], linestyle=":" if future else "-",
                                          edgecolor=s.GRID if future else "none", linewidth=1, gid=f"days:{state}"))
    for row, label in enumerate(ROWS):
        if label:
            s.put(ax, -0.2, row + 0.5, label, s.LABEL_PT, s.MUTED, ha="right", va="center")
    legend = [Patch(facecolor=s.BLUE, label="practised"), Patch(facecolor=s.SKY, label=f"{FREEZE_MARK} freeze day"),
              Patch(facecolor=s.EMPTY, label="missed"), Patch(facecolor=s.CARD, edgecolor=s.INK, linewidth=2,
                                                              label="today")]
    ax.legend(handles=legend, loc="upper center", bbox_to_anchor=(0.5, 0.02), ncol=4, frameon=False,
              prop={"family": s.fonts().for_text(FREEZE_MARK), "size": s.LABEL_PT}, handlelength=1.0, columnspacing=1.0,
              handletextpad=0.4)


def _bars(ax, values, colours, gids, labels_at):
    bars = ax.bar(range(len(values)), values, color=colours, width=0.72)
    for bar, gid in zip(bars, gids):
        bar.set_gid(gid)
    top = max(values) if values and max(values) > 0 else 1
    ax.set_ylim(0, top * 1.25)
    for i in labels_at:
        if 0 <= i < len(values) and values[i] > 0:
            ax.text(i, values[i] + top * 0.03, f"{values[i]:,}", ha="center", va="bottom", fontsize=s.LABEL_PT,
                    color=s.INK, parse_math=False)
    return bars


def _xp_panel(ax, history) -> None:
    s.style_axes(ax)
    weeks = history.weeks
    values = [w.xp for w in weeks]
    s.panel_title(ax, f"XP per week · {values[-1]:,} this week")
    best = max(range(len(values)), key=lambda i: values[i])
    _bars(ax, values, [s.ORANGE] * len(values), [f"xp:{w.start.isoformat()}" for w in weeks], {best, len(values) - 1})
    ax.set_xlim(-0.6, len(values) - 0.4)
    _week_ticks(ax, weeks)
    ax.yaxis.set_major_locator(_integer_locator())
    if not any(values):
        s.put(ax, 0.5, 0.5, "No XP in these weeks yet.", s.LABEL_PT, s.MUTED, ha="center", va="center",
              transform=ax.transAxes)


def _due_panel(ax, history) -> None:
    s.style_axes(ax)
    due = history.due
    values = [d.count for d in due]
    soon = due_soon(history.today, due)
    # "Due", not "Reviews due": the headline names the reviews, and the title must fit its half of
    # the width (about 36 characters at PANEL_PT) with two-digit counts and the day named.
    s.panel_title(ax, f"Due · {soon.today} today, {soon.ahead} more by {_day(soon.until)}")
    # The bars the title counts are coloured (today, then the days up to `until`); the days
    # after them are grey, past a dotted line, so no bar near the last day's label reads as it.
    colours = [s.BLUE if d.day <= history.today else s.SKY if d.day <= soon.until else DUE_LATER for d in due]
    _bars(ax, values, colours, [f"due:{d.day.isoformat()}" for d in due], range(len(values)))
    ax.set_xlim(-0.6, len(values) - 0.4)
    inside = [i for i, d in enumerate(due) if d.day <= soon.until]
    end = inside[-1] if inside else None
    if end is not None and end < len(values) - 1:
        ax.axvline(end + 0.5, color=s.MUTED, linestyle=":", linewidth=1.5, gid=f"due-window:{soon.until.isoformat()}")
    ticks = sorted({i for i in (0, end, len(values) - 1) if i is not None and 0 <= i < len(values)})
    ax.set_xticks(ticks, labels=["today" if i == 0 else _day(due[i].day) for i in ticks])
    for i, label in zip(ticks, ax.get_xticklabels()):
        if i:  # end at the bar's middle: the label stays under its own bar, clear of the next
            label.set_horizontalalignment("right")
    ax.yaxis.set_major_locator(_integer_locator())
    if not any(values):
        s.put(ax, 0.5, 0.5, "Nothing due in the next two weeks.", s.LABEL_PT, s.MUTED, ha="center", va="center",
              transform=ax.transAxes)


def _integer_locator():
    from matplotlib.ticker import MaxNLocator

    return MaxNLocator(nbins=3, integer=True, min_n_ticks=1)


def describe(data: StatsPicture) -> str:
    """The picture in words, for screen readers (the attachment's description)."""
    stats, history = data.stats, data.history
    weeks = history.weeks
    answered = sum(w.answered for w in weeks)
    right = sum(w.correct for w in weeks)
    explained = sum(w.explained for w in weeks)
    parts = [f"Progress chart for {data.name} over the last {len(weeks)} weeks."]
    if answered:
        parts.append(f"Quiz accuracy {100 * right / answered:.0f}% over {answered} answer{'s' if answered != 1 else ''} "
                     f"({_trend([w.accuracy for w in weeks])}).")
    else:
        parts.append("No quiz answers in these weeks.")
    if explained:
        mean = sum(w.score_sum for w in weeks) / explained
        parts.append(f"{explained} explanation{'s' if explained != 1 else ''} graded, average {mean:.1f} of 4.")
    freezes = sum(d.state == "freeze" for d in history.calendar)
    active = sum(d.state == "active" for d in history.calendar)
    parts.append(f"Streak calendar: {history.streak}-day streak, {active} days practised"
                 + (f", {freezes} freeze day{'s' if freezes != 1 else ''}" if freezes else "") + ".")
    parts.append(f"XP per week: {weeks[-1].xp} this week, {sum(w.xp for w in weeks)} over the {len(weeks)} weeks.")
    soon = due_soon(history.today, history.due)
    later = sum(d.count for d in history.due if d.day > soon.until)
    parts.append(f"Reviews due: {soon.today} today, {soon.ahead} more by {_day(soon.until)}"
                 + (f", {later} after that up to {_day(history.due[-1].day)}" if later else "") + ".")
    return " ".join(parts)


def _trend(values) -> str:
    seen = [v for v in values if v is not None]
    if len(seen) < 2:
        return "one week so far" if seen else "no trend yet"
    half = len(seen) // 2
    early, late = sum(seen[:half]) / half, sum(seen[half:]) / (len(seen) - half)
    if late - early > 0.05:
        return "rising"
    if early - late > 0.05:
        return "falling"
    return "steady"
