"""Summarise a cProfile of the bot (bench.bot_load --profile): the top functions by cumulative time.

    .venv/bin/python -m bench.profile_summary PROFILE.prof [--top 25] [--project]

`--project` keeps only this repository's functions (bot/, coach/, content/) and
the few library entry points worth naming; cumulative seconds include callees.
"""

from __future__ import annotations

import argparse
import pstats
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
OURS = ("/bot/", "/coach/", "/content/", "/retrieval/")


def rows(path: Path, project: bool) -> tuple[float, list[tuple[float, float, int, str]]]:
    stats = pstats.Stats(str(path))
    total = stats.total_tt  # type: ignore[attr-defined]
    out = []
    for (filename, line, name), (_cc, calls, tottime, cumtime, _callers) in stats.stats.items():  # type: ignore[attr-defined]
        if project and not any(part in filename for part in OURS):
            continue
        where = filename
        for prefix in ("site-packages/", "/lib/python3"):
            if prefix in filename:
                where = filename.split(prefix, 1)[1]
                break
        else:
            for part in OURS:
                if part in filename:
                    where = part.strip("/") + "/" + filename.split(part, 1)[1]
                    break
        out.append((cumtime, tottime, calls, f"{where}:{line}({name})"))
    out.sort(reverse=True)
    return total, out


def summary(path: Path, top: int = 25, project: bool = True) -> str:
    total, ranked = rows(path, project)
    lines = [f"total {total:.1f} s of profiled CPU in the bot process", "",
             f"{'cumulative s':>12} {'own s':>8} {'calls':>9}  function"]
    skip = ("(<module>)", "run_until_complete", "run_forever", "_run_once", "(run)", "(_run)")
    shown = 0
    for cumtime, tottime, calls, name in ranked:
        if any(s in name for s in skip):
            continue
        lines.append(f"{cumtime:12.2f} {tottime:8.2f} {calls:9d}  {name}")
        shown += 1
        if shown >= top:
            break
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("profile", type=Path)
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--all", action="store_true", help="library functions too")
    args = parser.parse_args()
    print(summary(args.profile, args.top, project=not args.all))


if __name__ == "__main__":
    main()
