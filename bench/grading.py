"""Grading benchmark (not part of `make test`).

    .venv/bin/python -m bench.grading [--base-url http://127.0.0.1:8000/v1] [--calibrate]
                                      [--out docs/bench/grading.md]

The embedding grader and (with --base-url) the LLM grader side by side on
tests/data/grading_{dev,test}.jsonl: quadratic weighted kappa, exact and within-1
agreement, red-flag recall/precision, injection catch rate, mean score offset
(leniency) and latency. --calibrate re-runs the dev-only threshold search and prints
the chosen values next to the ones in force.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import time
from datetime import datetime, timezone
from pathlib import Path

from coach.config import load_settings
from coach.grading.calibration import cross_validated_red_flag, features, fit_score_thresholds, search
from coach.grading.embedding_judge import EmbeddingThresholds
from coach.grading.eval import evaluate, grade_rows, load_eval_set
from coach.grading.runtime import open_grader
from coach.grading.scoring import CALIBRATED_THRESHOLDS
from coach.topics import TopicFinder
from content import default_catalog

NOTES_MARKER = "<!-- notes: kept across re-runs -->"

METRICS = [
    ("n", "answers graded"),
    ("qwk", "QWK"),
    ("exact", "exact"),
    ("within_1", "within 1"),
    ("red_flag_recall", "red-flag recall"),
    ("red_flag_precision", "red-flag precision"),
    ("injection_catch_rate", "injections caught (0 + flagged)"),
    ("mean_offset", "mean offset (leniency)"),
    ("off_topic_handled", "off-topic answered as such"),
    ("latency_p50_ms", "latency p50 (ms)"),
    ("latency_p95_ms", "latency p95 (ms)"),
    ("graders", "answered by"),
]


def machine() -> str:
    cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), platform.processor() or "unknown CPU")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return f"{platform.system()} {platform.machine()}, {os.cpu_count()} cores ({cpu}), load average {load:.1f} at start"


def fmt(value) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.3f}" if abs(value) < 10 else f"{value:.0f}"
    if isinstance(value, dict):
        return ", ".join(f"{k} {v}" for k, v in sorted(value.items())) or "-"
    return str(value)


def table(columns: dict[str, dict]) -> str:
    head = "| metric | " + " | ".join(columns) + " |"
    rule = "|---|" + "---|" * len(columns)
    body = [f"| {label} | " + " | ".join(fmt(c.get(key)) for c in columns.values()) + " |" for key, label in METRICS]
    return "\n".join([head, rule, *body])


async def run(args) -> tuple[dict[str, dict], dict | None]:
    settings = load_settings(llm_timeout_s=args.timeout, llm_max_tokens=args.max_tokens)
    catalog = default_catalog()
    topics = TopicFinder.from_settings(settings, catalog)
    columns: dict[str, dict] = {}
    graders = [("embedding", None)] + ([("llm", args.base_url)] if args.base_url else [])
    calibration = None
    for name, url in graders:
        async with open_grader(settings, catalog=catalog, topics=topics, llm_url=url) as grader:
            for split in args.splits:
                rows = load_eval_set(split)
                label = f"{name} · {split}"
                if url is not None and args.llm_sample and args.llm_sample < len(rows):
                    # CPU vLLM is slow: an evenly spaced sample keeps every kind of answer in it.
                    step = len(rows) / args.llm_sample
                    rows = [rows[int(i * step)] for i in range(args.llm_sample)]
                    label += f" ({args.llm_sample} sampled)"
                started = time.perf_counter()
                # The embedding grader is CPU-bound behind one model lock: one at a time gives its real
                # per-answer latency. The LLM gets many in flight so vLLM can batch them.
                in_flight = 1 if url is None else args.concurrency
                results, latencies = await grade_rows(grader, rows, concurrency=in_flight)
                report = evaluate(rows, results, latencies).to_json()
                report["wall_s"] = round(time.perf_counter() - started, 1)
                columns[label] = report
                print(f"{name} {split}: {report}", flush=True)
            if name == "embedding" and args.calibrate:
                dev = load_eval_set("dev")
                score, exact = fit_score_thresholds(dev)
                dev_features = features(grader.embedding_judge, catalog, dev)
                calibration = {
                    "score": score, "score_exact_on_hand_labels": exact, "search": search(dev_features, score),
                    "red_flag_cv": cross_validated_red_flag(dev_features),
                }
    return columns, calibration


def markdown(args, columns: dict[str, dict], calibration: dict | None, started: datetime) -> str:
    lines = [
        "## Grading",
        "",
        f"Command: `.venv/bin/python -m bench.grading {' '.join(args.argv)}`".rstrip() + "  ",
        f"Date: {started:%Y-%m-%d %H:%M} UTC  ",
        f"Machine: {machine()}  ",
        "Eval set: `tests/data/grading_dev.jsonl` (tuning) and `grading_test.jsonl` (frozen, reported only); "
        "labelling rules in `tests/data/README-grading.md`.",
        "",
        table(columns),
        "",
        "Latency is per answer: the embedding grader one answer at a time; the LLM grader with up to "
        f"{args.concurrency} gradings in flight (so it includes queueing inside vLLM).",
        "",
        "Thresholds in force: embedding "
        f"`{EmbeddingThresholds()}`; score cut-offs `{CALIBRATED_THRESHOLDS}`.",
    ]
    if calibration:
        found = calibration["search"]
        lines += [
            "",
            "Calibration re-run on dev (`--calibrate`): score cut-offs "
            f"`{calibration['score']}` reproduce {calibration['score_exact_on_hand_labels']:.3f} of the hand scores "
            f"from the hand key-point labels; embedding search -> `{found.embedding}` "
            f"(dev QWK {found.qwk:.3f}, exact {found.exact:.3f}, red-flag recall {found.red_flag_recall:.2f}, "
            f"precision {found.red_flag_precision:.2f}). Leave-one-bite-out on dev (fit the red-flag "
            f"thresholds on the other bites, decide on the held-out one): red-flag recall "
            f"{calibration['red_flag_cv'][0]:.2f}, precision {calibration['red_flag_cv'][1]:.2f}.",
        ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--base-url", default=None, help="the LLM grader's OpenAI-compatible URL (omit: embedding only)")
    parser.add_argument("--splits", nargs="+", default=["dev", "test"], choices=["dev", "test"])
    parser.add_argument("--calibrate", action="store_true", help="re-run the dev threshold search")
    parser.add_argument("--llm-sample", type=int, default=None, help="grade only N evenly spaced answers per split with the LLM")
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--max-tokens", type=int, default=384)
    parser.add_argument("--timeout", type=float, default=600.0, help="per LLM request, seconds (CPU vLLM is slow)")
    parser.add_argument("--out", default="docs/bench/grading.md")
    args = parser.parse_args(argv)
    args.argv = argv if argv is not None else __import__("sys").argv[1:]
    started = datetime.now(timezone.utc)
    columns, calibration = asyncio.run(run(args))
    text = markdown(args, columns, calibration, started)
    print(text)
    if args.out:
        out = Path(args.out)
        out.parent.mkdir(parents=True, exist_ok=True)
        # Hand-written notes below the marker survive a re-run; the measured part is replaced.
        old = out.read_text(encoding="utf-8") if out.exists() else ""
        notes = old[old.index(NOTES_MARKER):] if NOTES_MARKER in old else ""
        out.write_text(text + ("\n" + notes if notes else ""), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
