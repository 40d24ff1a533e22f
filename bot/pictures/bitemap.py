"""`/stats view:map`: every bite of a track as a tile coloured by the member's mastery,
grouped by each bite's first tag, with the bite to study next outlined."""

from __future__ import annotations

import math
import textwrap
from dataclasses import dataclass

from bot.pictures import style as s
from bot.pictures.models import MapPicture

COLUMNS = 6
TILE_W, TILE_H = 1.0, 0.62  # in grid units: a column is 1 wide
GAP = 0.06
HEADER_H = 0.34  # a shelf's group labels
LEVELS = ("new", "weak", "learning", "solid", "mastered")
FILL = {"new": "#ECEAE4", "weak": s.VERMILLION, "learning": s.ORANGE, "solid": s.SKY, "mastered": s.BLUE}
TEXT_ON = {"new": s.MUTED, "weak": "white", "learning": s.INK, "solid": s.INK, "mastered": "white"}
REASONS = {"due": "due for review", "weakest": "your weakest", "new": "not started yet"}
TITLE_CHARS, TITLE_LINES = 16, 3


@dataclass(frozen=True)
class Block:
    group: str
    bite_ids: tuple[str, ...]
    x: int  # first column
    width: int  # columns
    rows: int


def layout(groups: list[tuple[str, tuple[str, ...]]], columns: int = COLUMNS) -> list[list[Block]]:
    """Pack the groups into shelves of `columns` tiles: a group too big for one row takes
    whole rows of its own; the rest share rows, biggest first (first fit). Groups keep
    their bites in the track's order. Pure, so the packing is tested without drawing."""
    big = [(g, ids) for g, ids in groups if len(ids) > columns]
    small = sorted(((g, ids) for g, ids in groups if len(ids) <= columns), key=lambda item: -len(item[1]))
    shelves: list[list[Block]] = [[Block(g, ids, 0, columns, math.ceil(len(ids) / columns))] for g, ids in big]
    open_rows: list[list[Block]] = []
    for group, ids in small:
        for shelf in open_rows:
            used = sum(b.width for b in shelf)
            if used + len(ids) <= columns:
                shelf.append(Block(group, ids, used, len(ids), 1))
                break
        else:
            open_rows.append([Block(group, ids, 0, len(ids), 1)])
    return shelves + open_rows


def _groups(data: MapPicture) -> list[tuple[str, tuple[str, ...]]]:
    order: dict[str, list[str]] = {}
    for bite in data.map.bites:
        order.setdefault(bite.group, []).append(bite.bite_id)
    return [(g, tuple(ids)) for g, ids in order.items()]


def _wrap(title: str) -> str:
    lines = textwrap.wrap(s.safe_text(title), TITLE_CHARS, break_long_words=True) or [""]
    if len(lines) > TITLE_LINES:
        lines = lines[:TITLE_LINES]
        lines[-1] = lines[-1][: TITLE_CHARS - 1].rstrip() + "…"
    return "\n".join(lines)


def build_figure(data: MapPicture):
    """The Figure for a member's bite map (not yet rendered). What tests count: the tiles of
    each level (`tiles:<level>`, one collection each), each tile's title (`title:<bite id>`),
    the outline of the bite to study next (`next:<bite id>`), each group's label
    (`group:<tag>`)."""
    from matplotlib.collections import PatchCollection

    shelves = layout(_groups(data))
    by_id = {b.bite_id: b for b in data.map.bites}
    grid_h = sum(HEADER_H + max(b.rows for b in shelf) * TILE_H for shelf in shelves)
    top_in, bottom_in = 1.95, 0.3
    unit_in = (s.WIDTH_IN - 0.8) / COLUMNS  # inches per grid unit (0.4 in side margins)
    height_in = top_in + grid_h * unit_in + bottom_in
    fig = s.new_figure(height_in)
    ax = fig.add_axes((0.4 / s.WIDTH_IN, bottom_in / height_in, 1 - 0.8 / s.WIDTH_IN, grid_h * unit_in / height_in))
    ax.set_axis_off()
    ax.set_xlim(0, COLUMNS)
    ax.set_ylim(grid_h, 0)

    mapping = data.map
    practised = [b for b in mapping.bites if b.level != "new"]
    s.put(fig, 0.4 / s.WIDTH_IN, 1 - 0.45 / height_in, f"Bite map · {mapping.track_title} · {data.name}", s.TITLE_PT,
          weight="bold", va="center", limit=60)
    nxt = by_id.get(mapping.next_bite_id or "")
    line = f"{len(practised)} of {len(mapping.bites)} bites practised"
    if nxt is not None:
        line += f"   ·   next, {REASONS.get(mapping.next_reason, mapping.next_reason)}: {nxt.title}"
    # 80 characters fill the width at this size; a long title loses its end, not the reason.
    s.put(fig, 0.4 / s.WIDTH_IN, 1 - 0.95 / height_in, line, s.HEADLINE_PT, s.MUTED, va="center", limit=80)
    _legend(fig, mapping, height_in)

    tiles: dict[str, list] = {level: [] for level in LEVELS}
    y = 0.0
    for shelf in shelves:
        for block in shelf:
            label = f"{block.group} ({len(block.bite_ids)})" if len(block.bite_ids) > 1 else block.group
            text = s.put(ax, block.x + GAP / 2, y + HEADER_H * 0.55, label, s.LABEL_PT, s.MUTED, va="center",
                         weight="bold", limit=14 * block.width)
            text.set_gid(f"group:{block.group}")
        y += HEADER_H
        for block in shelf:
            for index, bite_id in enumerate(block.bite_ids):
                _tile(ax, tiles, by_id[bite_id], mapping, block.x + index % block.width + GAP / 2,
                      y + (index // block.width) * TILE_H + GAP / 2)
        y += max(b.rows for b in shelf) * TILE_H
    # One collection per level: one artist each draws far quicker than a patch per tile.
    for level, shapes in tiles.items():
        new = level == "new"
        ax.add_collection(PatchCollection(shapes, facecolor=FILL[level], edgecolor=s.GRID if new else "none",
                                          linestyle="--" if new else "-", linewidth=1.2, gid=f"tiles:{level}",
                                          zorder=1))
    return fig


def _tile(ax, tiles, bite, mapping, x0: float, y0: float) -> None:
    from matplotlib.patches import FancyBboxPatch

    shape = dict(boxstyle="round,pad=0,rounding_size=0.06")
    tiles[bite.level].append(FancyBboxPatch((x0, y0), TILE_W - GAP, TILE_H - GAP, **shape))
    colour = TEXT_ON[bite.level]
    title = _wrap(bite.title)
    ax.text(x0 + 0.05, y0 + 0.05, title, va="top", ha="left", fontsize=s.TILE_PT, color=colour, parse_math=False,
            linespacing=1.1, family=s.fonts().for_text(title), gid=f"title:{bite.bite_id}", zorder=3)
    corner = "new" if bite.mastery is None else f"{100 * bite.mastery:.0f}%"
    ax.text(x0 + TILE_W - GAP - 0.05, y0 + TILE_H - GAP - 0.04, corner, va="bottom", ha="right", fontsize=s.LABEL_PT,
            weight="bold", color=colour, parse_math=False, zorder=3)
    if bite.bite_id == mapping.next_bite_id:  # outlined, with a badge where "due" would go
        ax.add_patch(FancyBboxPatch((x0, y0), TILE_W - GAP, TILE_H - GAP, facecolor="none", edgecolor=s.INK,
                                    linewidth=4, zorder=2, gid=f"next:{bite.bite_id}", **shape))
        ax.text(x0 + 0.07, y0 + TILE_H - GAP - 0.07, "NEXT", va="bottom", ha="left", fontsize=s.TILE_PT,
                weight="bold", color="white", parse_math=False, zorder=4,
                bbox=dict(boxstyle="round,pad=0.25", facecolor=s.INK, edgecolor="none"))
    elif mapping.as_of is not None and bite.due is not None and bite.due <= mapping.as_of:
        ax.text(x0 + 0.05, y0 + TILE_H - GAP - 0.04, "↻ due", va="bottom", ha="left", fontsize=s.TILE_PT,
                color=colour, parse_math=False, zorder=3)


def _legend(fig, mapping, height_in: float) -> None:
    from matplotlib.patches import FancyBboxPatch

    counts = {level: 0 for level in LEVELS}
    for bite in mapping.bites:
        counts[bite.level] += 1
    x = 0.4 / s.WIDTH_IN
    y = 1 - 1.55 / height_in
    chip_w, chip_h = 0.32 / s.WIDTH_IN, 0.26 / height_in
    for level in LEVELS:
        fig.patches.append(FancyBboxPatch((x, y - chip_h / 2), chip_w, chip_h, boxstyle="round,pad=0,rounding_size=0.004",
                                          transform=fig.transFigure, facecolor=FILL[level],
                                          edgecolor=s.GRID if level == "new" else "none",
                                          linestyle="--" if level == "new" else "-", figure=fig))
        label = f"{level} {counts[level]}"
        fig.text(x + chip_w + 0.008, y, label, fontsize=s.LABEL_PT, color=s.INK, va="center", parse_math=False)
        x += chip_w + 0.015 + 0.0125 * len(label)


def describe(data: MapPicture) -> str:
    mapping = data.map
    counts = {level: sum(b.level == level for b in mapping.bites) for level in LEVELS}
    groups = len({b.group for b in mapping.bites})
    parts = [f"Bite map of the {mapping.track_title} track for {data.name}: {len(mapping.bites)} bites in "
             f"{groups} groups, each a tile coloured by mastery."]
    parts.append(", ".join(f"{counts[level]} {level}" for level in LEVELS) + ".")
    nxt = next((b for b in mapping.bites if b.bite_id == mapping.next_bite_id), None)
    if nxt is not None:
        parts.append(f"Next to study, outlined: {nxt.title} ({REASONS.get(mapping.next_reason, mapping.next_reason)}).")
    weakest = sorted((b for b in mapping.bites if b.mastery is not None), key=lambda b: b.mastery)[:3]
    if weakest:
        parts.append("Weakest: " + "; ".join(f"{b.title} {100 * b.mastery:.0f}%" for b in weakest) + ".")
    return " ".join(parts)
