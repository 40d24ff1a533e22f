"""How every picture looks: the palette, sizes, fonts, and text that never draws a box.

Colours are Okabe–Ito's colour-blind-safe set, and nothing is told by colour alone (a
mark, a label or a pattern says it too). Every picture is a light card with dark text,
so one image reads the same on Discord's light and dark themes. Sizes are for a phone:
images are about 1200 pixels wide and shown about 400 points wide, so the smallest text
is 15 points (about 21 pixels).

Fonts: DejaVu Sans (shipped with matplotlib) first, then Noto — Sans, CJK, Emoji (the
monochrome one: matplotlib draws outlines, not colour bitmaps), Symbols and the other
scripts — from the pinned packages `manimgx-fonts` and `manimgx-fonts-cjk`. matplotlib
falls back glyph by glyph along that list. A character none of them has, and invisible
joiners or variation selectors, are replaced or dropped (`safe_text`) before drawing, so
a display name never shows a box or raises matplotlib's missing-glyph warning. The CJK
font is variable and FreeType draws its default, thinnest instance, so text with CJK in
it is drawn with a thin outline of its own colour, which reads as a regular weight.
"""

from __future__ import annotations

import dataclasses
import re
import threading
import unicodedata
from functools import lru_cache
from importlib import resources
from pathlib import Path

# Okabe & Ito (2008), "Color Universal Design".
ORANGE = "#E69F00"
SKY = "#56B4E9"
GREEN = "#009E73"  # bluish green
YELLOW = "#F0E442"
BLUE = "#0072B2"
VERMILLION = "#D55E00"
PURPLE = "#CC79A7"  # reddish purple

CARD = "#F7F6F2"  # the card behind everything: light on both Discord themes
INK = "#1B1B1B"
MUTED = "#5A5A5A"
GRID = "#D9D7D0"
EMPTY = "#E4E2DC"  # a cell or tile with nothing in it
WRONG_BAR = "#B5B3AC"

DPI = 100
WIDTH_IN = 12.0  # 1200 px
TITLE_PT = 26
HEADLINE_PT = 19
PANEL_PT = 19
LABEL_PT = 15  # the smallest text anywhere but inside the bite map's tiles
TILE_PT = 13  # a bite's title inside its tile (read zoomed in; the colour and percentage are the glance)
VALUE_PT = 16

PRIMARY_FAMILY = "DejaVu Sans"
# (package, file, family name matplotlib reads from it)
_PACKAGED = (
    ("manimgx_fonts_cjk", "NotoSansCJK-VF.otf.ttc", "Noto Sans CJK JP"),
    ("manimgx_fonts", "NotoEmoji[wght].ttf", "Noto Emoji"),
    ("manimgx_fonts", "NotoSansSymbols[wght].ttf", "Noto Sans Symbols"),
    ("manimgx_fonts", "NotoSans[wght].ttf", "Noto Sans"),
    *(("manimgx_fonts", f"NotoSans{script}[wght].ttf", f"Noto Sans {script}") for script in (
        "Arabic", "Hebrew", "Devanagari", "Bengali", "Tamil", "Telugu", "Kannada", "Malayalam", "Gujarati",
        "Gurmukhi", "Oriya", "Sinhala", "Thai", "Lao", "Khmer", "Myanmar", "Georgian", "Armenian", "Ethiopic",
    )),
)

_INVISIBLE = re.compile(
    "[\u200b-\u200f\u202a-\u202e\u2060-\u206f\ufe00-\ufe0f\ufeff\U000e0000-\U000e007f\U000e0100-\U000e01ef"
    "\U0001f3fb-\U0001f3ff]"  # zero-width and direction marks, variation selectors, tags, skin tones
)
_CJK = re.compile("[\u1100-\u11ff\u2e80-\u2fdf\u3000-\u303f\u3040-\u30ff\u3100-\u31ff\u3200-\u9fff\ua960-\ua97f"
                  "\uac00-\ud7ff\uf900-\ufaff\uff00-\uffef\U00020000-\U0003134f]")
REPLACEMENT = "?"


@dataclasses.dataclass(frozen=True)
class Fonts:
    families: tuple[str, ...]  # the fallback list, primary first
    covered: frozenset[int]  # code points some font in the list can draw
    coverage: tuple[frozenset[int], ...]  # per family, in the same order

    def for_text(self, text: str) -> list[str]:
        """The primary family plus only the fallbacks `text` needs: matplotlib looks up
        every family of the list for every text, so a short list draws faster."""
        missing = {ord(c) for c in text} - self.coverage[0]
        chosen = [self.families[0]]
        for family, covered in zip(self.families[1:], self.coverage[1:]):
            if not missing:
                break
            if missing & covered:
                chosen.append(family)
                missing -= covered
        return chosen


@lru_cache(maxsize=1)
def fonts() -> Fonts:
    """Register the packaged fonts with matplotlib once per process and say what they cover.
    A package that is missing only narrows the coverage (its characters become `?`)."""
    from matplotlib import font_manager
    from matplotlib.ft2font import FT2Font

    manager = font_manager.fontManager
    families = [PRIMARY_FAMILY]
    primary = font_manager.findfont(font_manager.FontProperties(family=PRIMARY_FAMILY))
    coverage = [frozenset(FT2Font(primary).get_charmap())]
    known = {(entry.fname, entry.name) for entry in manager.ttflist}
    for package, filename, family in _PACKAGED:
        path = _package_file(package, filename)
        if path is None:
            continue
        if (str(path), family) not in known:
            before = len(manager.ttflist)
            manager.addfont(str(path))
            added = manager.ttflist[before:]
            # The variable fonts report one weight (CJK: 100); list each face as regular and
            # bold too, so asking for either finds it without a weight warning.
            for entry in added:
                for weight in (400, 700):
                    if entry.weight != weight:
                        manager.ttflist.append(dataclasses.replace(entry, weight=weight))
        entry = next((e for e in manager.ttflist if e.name == family and Path(e.fname) == path), None)
        if entry is None:
            continue
        families.append(family)
        coverage.append(frozenset(FT2Font(str(path), face_index=entry.index).get_charmap()))
    return Fonts(tuple(families), frozenset().union(*coverage), tuple(coverage))


def _package_file(package: str, filename: str) -> Path | None:
    try:
        path = Path(str(resources.files(package) / filename))
    except ModuleNotFoundError:
        return None
    return path if path.is_file() else None


def safe_text(text: str | None, limit: int | None = None) -> str:
    """`text` as the fonts can draw it, on one line: NFC; whitespace as single spaces;
    invisible characters (joiners, direction marks, variation selectors, skin-tone
    modifiers) dropped, and combining marks with nothing to combine with; a character no
    font has replaced by its compatibility form when the fonts have that (so "𝐁𝐨𝐥𝐝"
    reads "Bold"), else by `?`; cut to `limit` characters."""
    covered = fonts().covered
    text = _INVISIBLE.sub("", unicodedata.normalize("NFC", text or ""))
    out: list[str] = []
    for char in text:
        category = unicodedata.category(char)
        if char.isspace():
            if out and out[-1] != " ":
                out.append(" ")
            continue
        if category[0] == "M" and (not out or out[-1] in (" ", REPLACEMENT)):
            continue  # a mark on nothing draws a dotted circle (or, after a space, trips the layout)
        if category[0] != "C" and ord(char) in covered:
            out.append(char)
            continue
        folded = unicodedata.normalize("NFKC", char)
        if category[0] != "C" and folded != char and all(ord(c) in covered for c in folded):
            out.extend(folded)
        else:
            out.append(REPLACEMENT)
    text = "".join(out).strip()
    if limit is not None and len(text) > limit:
        text = text[: limit - 1].rstrip() + "…"
    return text


def has_cjk(text: str) -> bool:
    return bool(_CJK.search(text or ""))


def text_style(text: str, size: float, colour: str = INK, **extra) -> dict:
    """Keyword arguments for `Text` showing `text` as-is: no mathtext (a `$` in a name
    is a dollar sign), the fallback fonts, and the outline that thickens CJK."""
    style = dict(fontsize=size, color=colour, family=fonts().for_text(text), parse_math=False, **extra)
    if has_cjk(text):
        from matplotlib import patheffects

        style["path_effects"] = [patheffects.withStroke(linewidth=size * 0.035, foreground=colour)]
    return style


def put(target, x: float, y: float, text: str, size: float = LABEL_PT, colour: str = INK, *,
        limit: int | None = None, **extra):
    """Draw user or author text safely on an Axes or a Figure; returns the Text artist."""
    shown = safe_text(text, limit)
    return target.text(x, y, shown, **text_style(shown, size, colour, **extra))


def style_axes(ax) -> None:
    """The look every chart panel shares: no box, a light grid, large tick labels."""
    ax.set_facecolor(CARD)
    for side in ("top", "right", "left"):
        ax.spines[side].set_visible(False)
    ax.spines["bottom"].set_color(GRID)
    ax.tick_params(colors=MUTED, labelsize=LABEL_PT, length=0, pad=6)
    ax.grid(axis="y", color=GRID, linewidth=1)
    ax.set_axisbelow(True)


def panel_title(ax, text: str, gap: float = 0.02) -> None:
    """A panel's title, `gap` (of the figure's height) above the top-left corner of its grid
    cell, so panels in a row share one title line. (Not `set_title`: placing a title
    measures every tick label, a third of a render's time.)"""
    box = ax.get_subplotspec().get_position(ax.figure)
    put(ax.figure, box.x0, box.y1 + gap, text, PANEL_PT, INK, va="bottom", ha="left")


def new_figure(height_in: float):
    """A Figure on the card background, not attached to pyplot."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(WIDTH_IN, height_in), dpi=DPI, facecolor=CARD)
    return fig


def png_bytes(fig) -> bytes:
    """Render a Figure to PNG with Agg (no pyplot): an 8-bit palette image (these pictures are
    flat colours and anti-aliased text: 256 colours look the same, and the file is a third the
    size and a third the time to encode of a full-colour one), no timestamp or software tag,
    so the same data gives the same bytes."""
    import io

    import matplotlib
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from PIL import Image

    canvas = _canvas(FigureCanvasAgg, fig)
    # FreeType's hinting costs a quarter of a text-heavy render and changes nothing visible here.
    with matplotlib.rc_context({"text.hinting": "no_hinting"}):
        canvas.draw()
    size = canvas.get_width_height(physical=True)
    image = Image.frombuffer("RGBA", size, canvas.buffer_rgba(), "raw", "RGBA", 0, 1).convert("RGB")
    buffer = io.BytesIO()
    image.quantize(256, method=Image.Quantize.FASTOCTREE).save(buffer, format="PNG", compress_level=3)
    return buffer.getvalue()


_CANVASES = threading.local()


def _canvas(canvas_class, fig):
    """One Agg canvas per thread, handed from figure to figure. Its renderer is kept while the
    pixel size stays the same, and matplotlib caches text measurements per renderer: a fresh
    canvas per picture measured every label again (a sixth of the bite map's time)."""
    canvas = getattr(_CANVASES, "canvas", None)
    if canvas is None:
        canvas = _CANVASES.canvas = canvas_class(fig)
    else:
        canvas.figure = fig
        fig.set_canvas(canvas)
    return canvas


def artists(fig, prefix: str) -> list:
    """The figure's artists whose gid starts with `prefix` (tiles, bars, calendar cells):
    how tests check a picture's structure against its data without reading pixels."""
    return [a for a in fig.findobj(lambda a: (a.get_gid() or "").startswith(prefix))]
