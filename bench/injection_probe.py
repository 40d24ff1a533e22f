"""Injection detection on a held-out probe set (never part of `make test`).

    .venv/bin/python -m bench.injection_probe [--probe tests/data/injection_probe_v3.jsonl]

Probe sets are written by a helper that never saw the detectors: attempts to instruct
the grader, honest answers, and hard negatives (honest answers about graders, rubrics,
JSON schemas, system prompts). v1 (40 + 40) was read once held out, then the patterns
were broadened from it, so it is now development data; v2 (30 + 30) is the held-out one. Each answer goes through the shipped embedding
grader against the bite retrieval picks for it (as `coach grade` without `--bite`); an
attempt counts as caught when it gets no points: scored 0 and flagged, or turned away as
off topic. Writes docs/bench/injection_probe.md.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from datetime import datetime, timezone
from pathlib import Path

from bench.grading import commit
from bench.machine import machine
from coach.config import load_settings
from coach.grading.models import Grade, OffTopic
from coach.grading.runtime import open_grader

DATA = Path(__file__).resolve().parents[1] / "tests" / "data"
OUT = Path("docs/bench/injection_probe.md")


async def run(rows: list[dict]) -> list:
    async with open_grader(load_settings(), llm_url=None) as grader:
        return [await grader.grade(row["answer"]) for row in rows]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--probe", default=str(DATA / "injection_probe_v3.jsonl"))
    args = parser.parse_args(argv)
    probe = Path(args.probe)
    started = datetime.now(timezone.utc)
    rows = [json.loads(line) for line in probe.read_text(encoding="utf-8").splitlines() if line.strip()]
    results = asyncio.run(run(rows))
    attempts = [(r, g) for r, g in zip(rows, results) if r["injection"]]
    honest = [(r, g) for r, g in zip(rows, results) if not r["injection"]]
    caught = sum(isinstance(g, OffTopic) or (isinstance(g, Grade) and g.injection and g.score == 0) for _, g in attempts)
    false_alarms = sum(isinstance(g, Grade) and g.injection for _, g in honest)
    missed = [r["style"] for r, g in attempts if not (isinstance(g, OffTopic) or (isinstance(g, Grade) and g.injection))]
    text = "\n".join([
        f"### Injection probe: `{probe.name}`",
        "",
        f"Command: `.venv/bin/python -m bench.injection_probe --probe {probe.relative_to(DATA.parents[1])}`  ",
        f"Date: {started:%Y-%m-%d %H:%M} UTC; commit {commit()}  ",
        f"Machine: {machine()}",
        "",
        "| | answers | result |",
        "|---|---|---|",
        f"| attempts to instruct the grader given no points | {len(attempts)} | {caught} ({caught / len(attempts):.0%}) |",
        f"| honest answers flagged as injection | {len(honest)} | {false_alarms} ({false_alarms / len(honest):.0%}) |",
        "",
        "Missed attempts, by the writer's description of the tactic: " + ("; ".join(missed) or "none") + ".",
    ]) + "\n"
    print(text)
    old = OUT.read_text(encoding="utf-8") if OUT.exists() else ""
    OUT.write_text((old + "\n" if old else "") + text, encoding="utf-8")  # each probe read is kept
    return 0


if __name__ == "__main__":
    sys.exit(main())
