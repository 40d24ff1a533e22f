"""Grading benchmark (never part of `make test`).

    .venv/bin/python -m bench.grading [--base-url URL] [--reference FILE] [--llm-sample N]
    .venv/bin/python -m bench.grading --test [--reference FILE]          # logged: see below
    .venv/bin/python -m bench.grading --llm-track [--reference FILE]     # the LLM track's test set, logged
    .venv/bin/python -m bench.grading --test --write-prompts OUT.jsonl  # for the reference judge

On the blind dev split (default) or the blind test split (`--test`), side by side:
(a) the rubric's ceiling: the score function fed the gold key-point verdicts;
(b) each judge's verdicts against the gold verdicts (per status, purpose, red flag, injection);
(c) end to end through the shipped pipeline: QWK, exact, within-1, mean offset, red flags.
Judges: the embedding grader; the LLM grader at `--base-url`; a reference judge's verdicts
replayed from `--reference` (a capable model that read the exact `LLMJudge.messages`;
labelled "reference judge, not shipped") through the shipped `verify` and score function.

Figures from the test split come only from here (tests/grading/test_eval_set.py and
tests/retrieval/test_topics.py read it for its hash, form and bite coverage, never a figure),
and every read appends date, commit, command and
figures to docs/bench/grading_test_log.md. Nothing is chosen after reading test.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

from bench.grading_report import by_kind, judge_vs_gold, kind_table, markdown_table, rubric_ceiling
from bench.machine import machine
from coach.config import load_settings
from coach.grading.eval import evaluate, grade_rows, load_eval_set
from coach.grading.runtime import open_grader
from coach.topics import TopicFinder
from content import default_catalog

DATA = Path(__file__).resolve().parents[1] / "tests" / "data"
SPLITS = {"dev": DATA / "grading_blind_dev.jsonl", "test": DATA / "grading_blind_test.jsonl",
          # The LLM track's held-out set (#29). Its first version was read once (read 13) and retired
          # to design data; v2 was written and labelled blind after that read.
          "llm_test": DATA / "grading_blind_llm_test_v2.jsonl"}
DEV_OUT = Path("docs/bench/grading.md")
TEST_LOG = Path("docs/bench/grading_test_log.md")
NOTES_MARKER = "<!-- notes: kept across re-runs -->"
LOG_HEADER = """# Grading: every read of the blind test split

Appended by `python -m bench.grading --test`, the only code that computes a figure from
`tests/data/grading_blind_test.jsonl` (`tests/grading/test_eval_set.py` and
`tests/retrieval/test_topics.py` read it for its hash, its form and its coverage of the
bites, never a figure). Nothing is chosen after a read; a design change after a read needs
a fresh test set.
"""


def commit() -> str:
    def git(*args: str) -> str:
        return subprocess.run(["git", *args], capture_output=True, text=True, check=False).stdout.strip()

    head = git("rev-parse", "--short", "HEAD") or "unknown"
    return head + (" (uncommitted changes)" if git("status", "--porcelain", "--untracked-files=no") else "")


async def run(args, rows: list[dict]) -> tuple[dict[str, dict], dict[str, dict]]:
    """End-to-end reports and verdict-vs-gold reports, per judge."""
    from bench.reference_judge import ReplayJudge

    settings = load_settings(llm_timeout_s=args.timeout, llm_max_tokens=args.max_tokens, cpu_judge="combined")
    catalog = default_catalog()
    topics = TopicFinder.from_settings(settings, catalog)
    judges = [("combined", None), ("trained", None), ("embedding", None)] + ([("llm", args.base_url)] if args.base_url else [])
    if args.reference:
        judges.append(("reference judge, not shipped", "replay"))
    reports, verdicts, kinds = {}, {}, {}
    for name, url in judges:
        chosen = rows
        async with open_grader(settings, catalog=catalog, topics=topics, llm_url=None if url == "replay" else url,
                               trust_llm=True) as grader:
            if name in ("trained", "embedding"):  # the CPU judges side by side, one model load
                grader.cpu_judge = "trained"
                if name == "embedding":
                    grader.point_judge = None
            if url == "replay":
                grader.trust_llm(ReplayJudge.from_file(args.reference, rows))
            elif url is not None and args.llm_sample and args.llm_sample < len(rows):
                step = len(rows) / args.llm_sample  # CPU vLLM is slow: an evenly spaced sample
                chosen = [rows[int(i * step)] for i in range(args.llm_sample)]
                name += f" ({args.llm_sample} sampled)"
            started = time.perf_counter()
            results, latencies = await grade_rows(grader, chosen, concurrency=1 if url is None else args.concurrency)
        report = evaluate(chosen, results, latencies).to_json()
        report["wall_s"] = round(time.perf_counter() - started, 1)
        reports[name] = report
        verdicts[name] = judge_vs_gold(chosen, results)
        kinds[name] = by_kind(chosen, results)
        if name == args.quotes_judge and args.quotes:
            write_quotes(chosen, results, Path(args.quotes))
        print(f"{name}: {report}", file=sys.stderr, flush=True)
    return reports, verdicts, kinds


def write_quotes(rows: list[dict], results: list, out: Path) -> None:
    """Every tick a judge showed (covered or partial, with its quote), for readers to check that
    each quote supports its verdict: {id, bite_id, answer, point, status, quote}."""
    from coach.grading.models import Grade

    with open(out, "w", encoding="utf-8") as handle:
        for row, grade in zip(rows, results):
            if not isinstance(grade, Grade):
                continue
            for kp in grade.key_points:
                if kp.status in ("covered", "partial"):
                    handle.write(json.dumps({"id": row["id"], "bite_id": row["bite_id"], "answer": row["answer"],
                                             "point": kp.point, "status": kp.status, "quote": kp.evidence},
                                            ensure_ascii=False) + "\n")


def section(args, split: str, rows: list[dict], reports: dict, verdicts: dict, kinds: dict, started: datetime) -> str:
    catalog = default_catalog()
    from coach.grading.fit import load_fit

    ceiling = rubric_ceiling(rows, catalog, load_fit().rule)
    return "\n".join([
        f"Command: `.venv/bin/python -m bench.grading {' '.join(args.argv)}`".rstrip() + "  ",
        f"Date: {started:%Y-%m-%d %H:%M} UTC; commit {commit()}  ",
        f"Machine: {machine()}  ",
        f"Split: `{SPLITS[split].relative_to(DATA.parents[1])}` ({len(rows)} answers, "
        f"{len({r['bite_id'] for r in rows})} bites); labels in `tests/data/README-grading.md`.",
        "",
        "(a) The rubric's ceiling: the shipped score function fed the gold key-point verdicts, purpose, "
        f"red flag and injection: QWK {ceiling['qwk']:.3f}, exact {ceiling['exact']:.3f}, "
        f"mean offset {ceiling['mean_offset']:+.3f} (n {ceiling['n']}).",
        "",
        "(b) Verdicts against the gold verdicts:",
        "",
        markdown_table(verdicts, kind="verdicts"),
        "",
        "(c) End to end through the shipped pipeline:",
        "",
        markdown_table(reports, kind="grades"),
        "",
        "(d) By kind of answer (the writer's brief), and the sure red flag:",
        "",
        kind_table(kinds),
    ]) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--test", action="store_true", help="the blind test split (each read is logged)")
    parser.add_argument("--llm-track", action="store_true",
                        help="the LLM track's blind test set (issue #29; logged like --test)")
    parser.add_argument("--base-url", default=None, help="the LLM grader's OpenAI-compatible URL")
    parser.add_argument("--reference", default=None, help="a reference judge's verdicts (JSON Lines) to replay")
    parser.add_argument("--write-prompts", default=None, help="write the exact LLM prompts for the split and stop")
    parser.add_argument("--llm-sample", type=int, default=None, help="grade N evenly spaced answers with the LLM")
    parser.add_argument("--quotes", default=None, help="write a CPU judge's shown quotes (JSON Lines) here")
    parser.add_argument("--quotes-judge", default="embedding", choices=("embedding", "combined", "trained"),
                        help="whose quotes --quotes writes (default: the CPU default, embedding)")
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--max-tokens", type=int, default=640)
    parser.add_argument("--timeout", type=float, default=600.0, help="per LLM request, seconds (CPU vLLM is slow)")
    args = parser.parse_args(argv)
    args.argv = argv if argv is not None else sys.argv[1:]
    split = "llm_test" if args.llm_track else "test" if args.test else "dev"
    started = datetime.now(timezone.utc)
    rows = load_eval_set(SPLITS[split], split)
    missing = {row["bite_id"] for row in rows} - set(default_catalog().bites)
    if missing:
        raise SystemExit(f"{len(missing)} bites of {SPLITS[split].name} are not in the catalog (e.g. "
                         f"{sorted(missing)[0]}): its track is not in the catalog")
    if args.write_prompts:
        from bench.reference_judge import write_prompts

        write_prompts(rows, Path(args.write_prompts))
        text = f"Prompts for the reference judge written to `{args.write_prompts}`; no figures.\n"
    else:
        reports, verdicts, kinds = asyncio.run(run(args, rows))
        text = section(args, split, rows, reports, verdicts, kinds, started)
    print(text)
    if split != "dev":
        log = TEST_LOG.read_text(encoding="utf-8") if TEST_LOG.exists() else ""
        number = sum(1 for line in log.splitlines() if line.startswith("### Read")) + 1
        entry = (f"\n### Read {number}: {started:%Y-%m-%d %H:%M} UTC, commit {commit()}\n\n"
                 f"Command: `.venv/bin/python -m bench.grading {' '.join(args.argv)}`\n\n{text}")
        TEST_LOG.write_text((log or LOG_HEADER) + entry, encoding="utf-8")
        return 0
    old = DEV_OUT.read_text(encoding="utf-8") if DEV_OUT.exists() else ""
    notes = old[old.index(NOTES_MARKER):] if NOTES_MARKER in old else NOTES_MARKER + "\n"
    DEV_OUT.write_text("## Grading (blind dev split)\n\n" + text + "\n" + notes, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
