"""How long one grading takes on the CPU judges, side by side in one run (never part of `make test`).

    .venv/bin/python -m bench.grading_speed [--repeat 3]

Two kinds of answer, from the blind dev split: 60-second answers (120-180 words, the size an
interviewer hears) and 4,000-character answers (the cap; dev answers of one bite joined until
they reach it). Each is graded with its bite given (no retrieval) by the trained judge and the
embedding judge, one at a time, after a warm-up; the table gives p50 / p95 / max per judge and
their ratio. Writes docs/bench/grading_speed.md.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

from bench.collect import publish
from bench.machine import machine
from bench.stats import percentile
from coach.config import load_settings
from coach.grading.eval import load_eval_set
from coach.grading.runtime import open_grader

DEV = Path(__file__).resolve().parents[1] / "tests" / "data" / "grading_blind_dev.jsonl"
OUT = Path("docs/bench/grading_speed.md")
CAP = 4000


def answers() -> dict[str, list[tuple[str, str]]]:
    rows = load_eval_set(DEV)
    spoken = [(r["bite_id"], r["answer"]) for r in rows if 120 <= len(r["answer"].split()) <= 180]
    by_bite = defaultdict(list)
    for r in rows:
        by_bite[r["bite_id"]].append(r["answer"])
    long = []
    for bite_id, texts in sorted(by_bite.items()):
        joined = ""
        for text in texts:
            joined = f"{joined} {text}".strip()
            if len(joined) >= CAP:
                long.append((bite_id, joined[:CAP]))
                break
    return {"60-second answer (120-180 words)": spoken[:40], "4,000-character answer": long[:12]}


async def measure(repeat: int) -> dict[tuple[str, str], list[float]]:
    times: dict[tuple[str, str], list[float]] = defaultdict(list)
    sets = answers()
    async with open_grader(load_settings(cpu_judge="trained"), llm_url=None) as grader:
        trained = grader.point_judge
        for judge in ("trained", "embedding"):
            grader.point_judge = trained if judge == "trained" else None
            await grader.grade(*reversed(sets["60-second answer (120-180 words)"][0]))  # warm-up
            for _ in range(repeat):
                for size, items in sets.items():
                    for bite_id, text in items:
                        started = time.perf_counter()
                        await grader.grade(text, bite_id)
                        times[(size, judge)].append((time.perf_counter() - started) * 1000)
    return times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    times = asyncio.run(measure(args.repeat))
    lines = [
        "## Grading speed: the trained judge beside the embedding judge", "",
        f"Command: `.venv/bin/python -m bench.grading_speed --repeat {args.repeat}`  ",
        f"Machine: {machine()}", "",
        "| answer | judge | gradings | p50 ms | p95 ms | max ms | p95 vs embedding |",
        "|---|---|---|---|---|---|---|",
    ]
    for size in dict.fromkeys(s for s, _ in times):
        base = percentile(times[(size, "embedding")], 0.95)
        for judge in ("trained", "embedding"):
            ms = times[(size, judge)]
            lines.append(f"| {size} | {judge} | {len(ms)} | {statistics.median(ms):.0f} | {percentile(ms, 0.95):.0f} | "
                         f"{max(ms):.0f} | {percentile(ms, 0.95) / base:.2f}× |")
    publish("\n".join(lines) + "\n", OUT)
    return 0


if __name__ == "__main__":
    sys.exit(main())
