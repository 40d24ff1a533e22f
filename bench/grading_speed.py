"""How long one grading takes on the CPU judges, side by side in one run (never part of `make test`).

    .venv/bin/python -m bench.grading_speed [--repeat 3]

Two kinds of answer, from the blind dev split: 60-second answers (120-180 words, the size an
interviewer hears) and 4,000-character answers (the cap; dev answers of one bite joined until
they reach it). Each is graded with its bite given (no retrieval) by the trained judge and the
embedding judge, each with its models in fp32 and, where this CPU has bf16 instructions, in
bf16 (what `EMBEDDING_PRECISION=auto` picks then), one at a time, after a warm-up, in
interleaved rounds so that the machine's other load falls on all alike. The table gives
p50 / p95 / max per judge and precision and the p95 ratio to the embedding judge in fp32.
Writes docs/bench/grading_speed.md.
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
from coach.grading.embedding_judge import EmbeddingJudge, idf_corpus
from coach.grading.point_judge import PointJudge
from coach.grading.point_model import PointModel
from coach.grading.point_pool import InlinePointJudge
from coach.grading.runtime import open_grader
from retrieval.embedder import Embedder, native_bf16
from retrieval.text import split_sentences

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


def judges(grader, precisions: list[str]) -> dict[str, tuple]:
    """Per (judge, precision): the embedding judge and the point judge the grader will use."""
    configs = {}
    for precision in precisions:
        embedder = Embedder(precision=precision)
        embedding = EmbeddingJudge(embedder, split_sentences, grader.fit.thresholds, idf_corpus(grader.catalog))
        point = InlinePointJudge(PointJudge(PointModel(precision=precision), split_sentences,
                                            grader.fit.point_thresholds, embedder=embedder))
        configs[f"trained {precision}"] = (embedding, point)
        configs[f"embedding {precision}"] = (embedding, None)
    return configs


async def measure(repeat: int, precisions: list[str]) -> dict[tuple[str, str], list[float]]:
    times: dict[tuple[str, str], list[float]] = defaultdict(list)
    sets = answers()
    async with open_grader(load_settings(cpu_judge="trained"), llm_url=None) as grader:
        configs = judges(grader, precisions)
        for embedding, point in configs.values():  # warm-up
            grader.embedding_judge, grader.point_judge = embedding, point
            await grader.grade(*reversed(sets["60-second answer (120-180 words)"][0]))
        for _ in range(repeat):
            for size, items in sets.items():
                for bite_id, text in items:
                    for name, (embedding, point) in configs.items():
                        grader.embedding_judge, grader.point_judge = embedding, point
                        started = time.perf_counter()
                        await grader.grade(text, bite_id)
                        times[(size, name)].append((time.perf_counter() - started) * 1000)
    return times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    precisions = ["fp32", "bf16"] if native_bf16() else ["fp32"]
    times = asyncio.run(measure(args.repeat, precisions))
    lines = [
        "## Grading speed: the trained judge beside the embedding judge, in fp32 and bf16", "",
        f"Command: `.venv/bin/python -m bench.grading_speed --repeat {args.repeat}`  ",
        f"Machine: {machine()}; bf16 instructions: {'yes' if native_bf16() else 'no (bf16 rows left out)'}", "",
        "| answer | judge | precision | gradings | p50 ms | p95 ms | max ms | p95 vs embedding fp32 |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for size in dict.fromkeys(s for s, _ in times):
        base = percentile(times[(size, "embedding fp32")], 0.95)
        for name in dict.fromkeys(n for z, n in times if z == size):
            ms = times[(size, name)]
            judge, precision = name.split()
            lines.append(f"| {size} | {judge} | {precision} | {len(ms)} | {statistics.median(ms):.0f} | "
                         f"{percentile(ms, 0.95):.0f} | {max(ms):.0f} | {percentile(ms, 0.95) / base:.2f}× |")
    publish("\n".join(lines) + "\n", OUT)
    return 0


if __name__ == "__main__":
    sys.exit(main())
