"""Summarise a profile of the bot: the top functions by cumulative (inclusive) time.

    .venv/bin/python -m bench.profile_summary FILE [--top 25] [--all]

FILE is py-spy raw output (`bench.bot_load --py-spy DIR`: collapsed stacks of the thread holding the GIL, one
"frame;frame;... count" line each; the share of samples a function is on the stack
for) or a cProfile dump (`--profile DIR`, .prof). Without `--all` only this
repository's functions (bot/, coach/, content/) are listed.
"""

from __future__ import annotations

import argparse
import pstats
import re
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
        out.append((cumtime, tottime, calls, f"{_short_path(filename)}:{line}({name})"))
    out.sort(reverse=True)
    return total, out


def summary(path: Path, top: int = 25, project: bool = True) -> str:
    total, ranked = rows(path, project)
    lines = [f"total {total:.1f} s of profiled CPU in the bot process", "",
             f"{'cumulative s':>12} {'own s':>8} {'calls':>9}  function"]
    skip = ("(<module>)", "run_until_complete", "run_forever", "_run_once", "(run)", "(_run)")
    return _table(lines, ranked, top, lambda name: any(s in name for s in skip),
                  lambda cumtime, tottime, calls, name: f"{cumtime:12.2f} {tottime:8.2f} {calls:9d}  {name}")


def _table(header: list[str], ranked: list[tuple], top: int, hidden, line) -> str:
    """The header, then the first `top` rows whose function (each row's last field) is not hidden."""
    return "\n".join(header + [line(*row) for row in ranked if not hidden(row[-1])][:top])


def spy_rows(path: Path, project: bool) -> tuple[int, list[tuple[int, int, str]]]:
    """(total samples, [(inclusive samples, own samples, function)]) from py-spy raw output."""
    inclusive: dict[str, int] = {}
    own: dict[str, int] = {}
    total = 0
    for line in path.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        if not stack or not count.isdigit():
            continue
        n = int(count)
        total += n
        frames = [_short(frame) for frame in stack.split(";")]
        for frame in set(frames):
            inclusive[frame] = inclusive.get(frame, 0) + n
        own[frames[-1]] = own.get(frames[-1], 0) + n
    ranked = sorted(((c, own.get(f, 0), f) for f, c in inclusive.items()
                     if not project or any(part.strip("/") + "/" in f for part in OURS)), reverse=True)
    return total, ranked


def _short(frame: str) -> str:
    """"name (path/to/file.py:12)" -> "name (bot/x.py:12)" or "name (discord/x.py:12)"."""
    name, _, where = frame.partition(" (")
    return f"{name} ({_short_path(where.rstrip(')'))})"


def _short_path(where: str) -> str:
    """A library's path from its package ("discord/ui/view.py"), the project's from its top folder."""
    library = re.sub(r"^.*/(site-packages|lib/python3\.\d+)/", "", where)
    if library != where:
        return library
    for part in OURS:
        if part in where:
            return part.strip("/") + "/" + where.split(part, 1)[1]
    return where


def spy_summary(path: Path, top: int = 25, project: bool = True) -> str:
    total, ranked = spy_rows(path, project)
    lines = [f"{total} samples of the bot process holding the GIL (py-spy --gil)", "",
             f"{'inclusive':>9} {'own':>6}  function"]
    skip = ("<module>", "run_until_complete", "run_forever", "_run_once", "run (", "_run (", "main (", "run_command (")
    plumbing = ("(asyncio/", "(<frozen", "(threading.py", "(runpy")  # the event loop and thread start-up
    return _table(lines, ranked, top,
                  lambda name: any(name.startswith(s) for s in skip) or any(p in name for p in plumbing),
                  lambda count, mine, name: f"{100 * count / max(total, 1):8.1f}% {100 * mine / max(total, 1):5.1f}%  {name}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("profile", type=Path)
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--all", action="store_true", help="library functions too")
    args = parser.parse_args()
    if args.profile.suffix == ".prof":
        print(summary(args.profile, args.top, project=not args.all))
    else:
        print(spy_summary(args.profile, args.top, project=not args.all))


if __name__ == "__main__":
    main()
