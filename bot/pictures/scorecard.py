"""The interview's scorecard as a picture: the signal on top, then per question one row per
key point, a chip coloured by what became of it (landed at once, rescued on follow-up, partly
there, never landed, stated wrongly) beside the point's text, core points first."""

from __future__ import annotations

from bot.pictures import style as s
from bot.pictures.models import ScorecardPicture
from coach.interview.rules import SIGNAL_WORDS

OUTCOMES = ("landed", "rescued", "partly", "missed", "wrong")
FILL = {"landed": s.BLUE, "rescued": s.SKY, "partly": s.YELLOW, "missed": s.EMPTY, "wrong": s.VERMILLION}
WORDS = {"landed": "landed at once", "rescued": "rescued on follow-up", "partly": "partly there",
         "missed": "never landed", "wrong": "stated wrongly"}
SIGNAL_FILL = {"strong_yes": s.BLUE, "lean_yes": s.SKY, "lean_no": s.ORANGE, "strong_no": s.VERMILLION}
ROW_IN, QUESTION_IN, TOP_IN, BOTTOM_IN = 0.42, 0.62, 1.95, 0.35
POINT_CHARS = 95


def build_figure(data: ScorecardPicture):
    """The Figure (not yet rendered). What tests count: one chip per key point
    (`chip:<question>:<point>:<outcome>`), the signal (`signal:<signal>`)."""
    from matplotlib.patches import FancyBboxPatch

    card = data.card
    asked = [q for q in card.questions if q.score is not None]
    rows = sum(len(q.outcomes) for q in asked)
    height_in = TOP_IN + len(asked) * QUESTION_IN + rows * ROW_IN + BOTTOM_IN
    fig = s.new_figure(height_in)
    left = 0.4 / s.WIDTH_IN

    def y_of(inches_from_top: float) -> float:
        return 1 - inches_from_top / height_in

    s.put(fig, left, y_of(0.45), f"Interview scorecard · {data.name}", s.TITLE_PT, weight="bold", va="center",
          limit=60)
    signal = SIGNAL_WORDS.get(card.signal or "", "No signal: nothing answered")
    chip = s.put(fig, left, y_of(1.05), f" {signal} ", s.HEADLINE_PT, "white" if card.signal else s.INK,
                 va="center", weight="bold",
                 bbox=dict(boxstyle="round,pad=0.35", facecolor=SIGNAL_FILL.get(card.signal or "", s.EMPTY),
                           edgecolor="none"))
    chip.set_gid(f"signal:{card.signal}")
    if card.signal:
        _legend(fig, left, y_of(1.6), height_in)
    at = TOP_IN
    for number, question in enumerate(card.questions):
        if question.score is None:
            continue
        s.put(fig, left, y_of(at + QUESTION_IN * 0.55),
              f"{number + 1}. {question.title} — first answer {question.score}/4"
              + ("   🚩 red flag" if question.red_flag else ""), s.HEADLINE_PT, weight="bold", va="center", limit=80)
        at += QUESTION_IN
        ordered = sorted(enumerate(question.outcomes), key=lambda item: item[1][1] != "core")
        for point, (text, kind, outcome) in ordered:
            y = y_of(at + ROW_IN / 2)
            box_w, box_h = 0.26 / s.WIDTH_IN, 0.26 / height_in
            fig.patches.append(FancyBboxPatch(
                (left, y - box_h / 2), box_w, box_h, boxstyle="round,pad=0,rounding_size=0.003",
                transform=fig.transFigure, facecolor=FILL[outcome], edgecolor=s.GRID if outcome == "missed" else "none",
                figure=fig, gid=f"chip:{number}:{point}:{outcome}"))
            label = f"[{kind}] {text}"
            s.put(fig, left + box_w + 0.01, y, label, s.LABEL_PT, s.MUTED if outcome == "missed" else s.INK,
                  va="center", limit=POINT_CHARS)
            at += ROW_IN
    return fig


def _legend(fig, x: float, y: float, height_in: float) -> None:
    from matplotlib.patches import FancyBboxPatch

    chip_w, chip_h = 0.26 / s.WIDTH_IN, 0.26 / height_in
    for outcome in OUTCOMES:
        fig.patches.append(FancyBboxPatch((x, y - chip_h / 2), chip_w, chip_h, boxstyle="round,pad=0,rounding_size=0.003",
                                          transform=fig.transFigure, facecolor=FILL[outcome],
                                          edgecolor=s.GRID if outcome == "missed" else "none", figure=fig))
        fig.text(x + chip_w + 0.006, y, WORDS[outcome], fontsize=s.LABEL_PT, color=s.INK, va="center",
                 parse_math=False)
        x += chip_w + 0.03 + 0.0092 * len(WORDS[outcome])


def describe(data: ScorecardPicture) -> str:
    card = data.card
    parts = [f"Interview scorecard for {data.name}: "
             + (f"signal {SIGNAL_WORDS[card.signal]}." if card.signal else "nothing answered, no signal.")]
    for question in card.questions:
        if question.score is None:
            continue
        counts = {o: sum(got == o for _, _, got in question.outcomes) for o in OUTCOMES}
        parts.append(f"{question.title}: first answer {question.score}/4; "
                     + ", ".join(f"{n} {WORDS[o]}" for o, n in counts.items() if n) + "."
                     + (" Red flag." if question.red_flag else ""))
    return " ".join(parts)
