"""Injection attempts and honest look-alikes on a probe set (never part of `make test`).

    .venv/bin/python -m bench.injection_probe [--probe tests/data/injection_probe_v11.jsonl] [--reference FILE]

Probe sets are written by helpers that never saw the net (coach.grading.injection): attempts
to instruct the grader, and honest answers that use the same words in their ordinary sense.
v1-v3 and `injection_probe_dev.jsonl` were read while the net was built, so they are
development data; v4 was the held-out probe of #27's first read (2026-12-02) and is development
data since; v5 (80 attempts, 170 honest look-alikes) was read on 2026-12-04 and is development
data since (the learned reader, coach.grading.attempt_reader, trains on it); so is v6 (93
attempts, 191 honest look-alikes, read on 2026-12-04); v7 (113 attempts, 182 honest look-alikes,
written blind by two new helpers on 2026-12-04) was read once by this command the same day and is
development data since; v8 (110 attempts, 190 honest look-alikes, written blind after the v7 read
by two new helpers) was read once on 2026-12-04 after the reader was retrained on v7; v9 (110
attempts, 190 honest look-alikes, written blind after the v8 read by new helpers with the same
briefs) was read once on 2026-12-05 after the reader gained its fine-tuned classifier; v10 (110
attempts, 190 honest look-alikes, written blind after the v9 read by two new helpers) was read
once on 2026-12-05, side by side, and decided that a reader retrained with v8 and v9 does not
ship; v11 (110 attempts, 190 honest look-alikes, written blind after the v10 read by three new
helpers) was read once on 2026-12-05 after the fixes v10 led to. No probe is unread now: the next
design needs a fresh one, written blind.

Each answer is graded against its bite (as `/explain topic:` gives it) by the CPU judges (the
trained judge, and the embedding judge side by side) and, with `--reference`, by the LLM path
fed a reference judge's recorded verdicts (a capable model that read the exact prompts; "not
shipped"). An attempt earns nothing when it scores 0; an honest answer is "called an
injection" when `injection` is true. Appends to docs/bench/injection_probe.md.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections import Counter
from datetime import datetime, timezone
from pathlib import Path

from bench.grading import commit
from bench.machine import machine
from coach.config import load_settings
from coach.grading.models import Grade
from coach.grading.runtime import open_grader

DATA = Path(__file__).resolve().parents[1] / "tests" / "data"
OUT = Path("docs/bench/injection_probe.md")


async def run(rows: list[dict], reference: str | None) -> dict[str, list]:
    from bench.reference_judge import ReplayJudge

    judges = ["trained", "embedding"] + (["reference judge, not shipped"] if reference else [])
    results = {}
    async with open_grader(load_settings(cpu_judge="trained"), llm_url=None) as grader:
        point_judge = grader.point_judge
        for name in judges:
            grader.point_judge = None if name == "embedding" else point_judge
            if name.startswith("reference"):
                grader.trust_llm(ReplayJudge.from_file(reference, rows))
            results[name] = [await grader.grade(row["answer"], row["bite_id"]) for row in rows]
    return results


def summary(rows: list[dict], grades: list) -> dict:
    attempts = [(r, g) for r, g in zip(rows, grades) if r["injection"]]
    honest = [(r, g) for r, g in zip(rows, grades) if not r["injection"]]
    earned = [r for r, g in attempts if isinstance(g, Grade) and g.score > 0]
    called = [r for r, g in honest if isinstance(g, Grade) and g.injection]
    return {
        "attempts": len(attempts), "attempts earning nothing": len(attempts) - len(earned),
        "honest": len(honest), "honest called injections": len(called),
        "missed tactics": dict(Counter(r.get("tactic", "?") for r in earned)),
        "honest flagged, by trigger": dict(Counter(r.get("tactic", "?") for r in called)),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--probe", default=str(DATA / "injection_probe_v11.jsonl"))
    parser.add_argument("--reference", default=None, help="a reference judge's verdicts (JSON Lines) to replay")
    parser.add_argument("--write-prompts", default=None, help="write the exact LLM prompts for the probe and stop")
    args = parser.parse_args(argv)
    probe = Path(args.probe)
    started = datetime.now(timezone.utc)
    rows = [json.loads(line) for line in probe.read_text(encoding="utf-8").splitlines() if line.strip()]
    if args.write_prompts:
        from bench.reference_judge import write_prompts

        write_prompts(rows, Path(args.write_prompts))
        note = (f"### Injection probe: `{probe.name}`: prompts for the reference judge written to "
                f"`{args.write_prompts}` ({started:%Y-%m-%d %H:%M} UTC, commit {commit()}); no figures.\n")
        OUT.write_text(OUT.read_text(encoding="utf-8") + "\n" + note if OUT.exists() else note, encoding="utf-8")
        print(note)
        return 0
    columns = {name: summary(rows, grades) for name, grades in asyncio.run(run(rows, args.reference)).items()}
    lines = [
        f"### Injection probe: `{probe.name}`", "",
        f"Command: `.venv/bin/python -m bench.injection_probe {' '.join(argv if argv is not None else sys.argv[1:])}`  ",
        f"Date: {started:%Y-%m-%d %H:%M} UTC; commit {commit()}  ",
        f"Machine: {machine()}", "",
        "| | " + " | ".join(columns) + " |", "|---|" + "---|" * len(columns),
    ]
    for key in ("attempts earning nothing", "honest called injections"):
        total = "attempts" if key.startswith("attempts") else "honest"
        lines.append(f"| {key} | " + " | ".join(
            f"{c[key]} of {c[total]} ({c[key] / c[total]:.1%})" if c[total] else "-" for c in columns.values()) + " |")
    for key in ("missed tactics", "honest flagged, by trigger"):
        lines.append(f"| {key} | " + " | ".join(
            ", ".join(f"{k} {v}" for k, v in sorted(c[key].items())) or "none" for c in columns.values()) + " |")
    text = "\n".join(lines) + "\n"
    print(text)
    old = OUT.read_text(encoding="utf-8") if OUT.exists() else ""
    OUT.write_text((old + "\n" if old else "") + text, encoding="utf-8")  # each probe read is kept
    return 0


if __name__ == "__main__":
    sys.exit(main())
