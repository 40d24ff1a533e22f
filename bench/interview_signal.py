"""The interview's signal rule against interviewers (issue #28): scripted interviews with blind
answers run through the shipped flow; two blind graders read each transcript and give the four-
step signal; the rule must be within one step of them in ≥ 90% and equal in ≥ 60%.

`tests/data/interview_scripts.jsonl`: per interview, a bite, a persona, the first answer and an
answer to every follow-up the interviewer might ask, written by writers who saw only the
questions (never a key point). The flow picks the follow-ups, so the transcript is what a member
would have lived through.

    python -m bench.interview_signal --write-transcripts FILE   # for the graders; no figures
    python -m bench.interview_signal                             # the rule against their labels

The second reads `tests/data/interview_signal_labels.jsonl` ({"interview_id", "a", "b"}) and
appends its table to `docs/bench/interview_signal.md` (every run, with its command and commit).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
from datetime import datetime, timezone
from pathlib import Path

from bench.grading import commit
from coach.config import load_settings

DATA = Path(__file__).resolve().parents[1] / "tests" / "data"
SCRIPTS, LABELS = DATA / "interview_scripts.jsonl", DATA / "interview_signal_labels.jsonl"
OUT = Path("docs/bench/interview_signal.md")
STEPS = ("strong_no", "lean_no", "lean_yes", "strong_yes")


def read_jsonl(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def write_prompts(scripts: list[dict], folder: Path) -> None:
    """The exact prompts of every answer a script holds: first answers (the whole bite) and
    follow-ups (the bite cut to the point, bench.interview_followups), ids as `replay_judge` reads them."""
    from bench import interview_followups, reference_judge

    folder.mkdir(parents=True, exist_ok=True)
    reference_judge.write_prompts([{"id": s["interview_id"], "bite_id": s["bite_id"], "answer": s["first_answer"]}
                                   for s in scripts], folder / "first_prompts.jsonl")
    interview_followups.write_prompts([{"id": f"{s['interview_id']}:{n}", "bite_id": s["bite_id"], "point": int(n),
                                        "answer": text} for s in scripts for n, text in s["follow_up_answers"].items()],
                                      folder / "follow_up_prompts.jsonl")
    print(f"Prompts written under {folder}; no figures.")


def replay_judge(scripts: list[dict], files: list[str]):
    """A reference judge's recorded verdicts, first answers and follow-ups alike (by answer)."""
    from bench.reference_judge import ReplayJudge

    rows = [{"id": s["interview_id"], "answer": s["first_answer"]} for s in scripts]
    follow_ups = {(r["interview_id"], str(r["point"])): r["id"] for r in read_jsonl(DATA / "interview_followups_dev.jsonl")}
    rows += [{"id": follow_ups.get((s["interview_id"], n), f"{s['interview_id']}:{n}"), "answer": text}
             for s in scripts for n, text in s["follow_up_answers"].items()]
    merged = Path(tempfile.mkstemp(suffix=".jsonl")[1])
    merged.write_text("".join(Path(f).read_text(encoding="utf-8") for f in files), encoding="utf-8")
    return ReplayJudge.from_file(merged, rows)


async def run_interviews(scripts: list[dict], reference: list[str] | None = None) -> list[dict]:
    """Each script through the flow (the CPU judge, or the replayed reference judge); the
    transcript and the rule's signal."""
    from coach.engine import Coach
    from coach.grading.runtime import migrated_store, open_grader
    from coach.interview.flow import InterviewFlow
    from content import default_catalog

    settings, catalog = load_settings(), default_catalog()
    done = []
    with tempfile.TemporaryDirectory() as scratch:
        throwaway = settings.model_copy(update={"database_url": f"sqlite+aiosqlite:///{Path(scratch) / 'signal.db'}"})
        async with migrated_store(throwaway) as store, open_grader(settings, catalog=catalog, llm_url=None) as grader:
            if reference:
                grader.trust_llm(replay_judge(scripts, reference))
            for number, script in enumerate(scripts, start=1):
                flow = InterviewFlow(Coach(store, catalog, throwaway), grader)
                step = await flow.start(number, 0, "inference", 1, first=script["bite_id"])
                transcript = []
                while step.state.open:
                    point = step.state.asking[1]
                    asked = flow.question_text(step.state)
                    answer = script["first_answer"] if point is None else script["follow_up_answers"][str(point)]
                    transcript.append({"asked": asked, "answer": answer})
                    step = await flow.answer(number, step.state.interview_id, step.state.turn, answer)
                done.append({"interview_id": script["interview_id"], "bite_id": script["bite_id"],
                             "question": catalog.bites[script["bite_id"]].title, "transcript": transcript,
                             "signal": step.state.signal})
                print(f"{number}/{len(scripts)} {script['interview_id']}: {step.state.signal}", file=sys.stderr)
    return done


def report(results: list[dict], labels: dict[str, dict], judge: str) -> str:
    rows = [(r, labels[r["interview_id"]]) for r in results if r["interview_id"] in labels]
    rank = {s: i for i, s in enumerate(STEPS)}

    def agree(x, y):
        return abs(rank[x] - rank[y])

    between = [agree(lab["a"], lab["b"]) for _, lab in rows]
    lines = [f"{len(rows)} scripted interviews (one question each) through the flow with {judge}; "
             f"two blind graders: equal on {between.count(0)} of {len(rows)}, within one step on "
             f"{sum(d <= 1 for d in between)}.", "",
             "| the rule against | equal (target ≥ 60%) | within one step (target ≥ 90%) |", "|---|---|---|"]
    for who in ("a", "b"):
        gaps = [agree(r["signal"], lab[who]) for r, lab in rows]
        lines.append(f"| grader {who.upper()} | {gaps.count(0) / len(gaps):.0%} | {sum(g <= 1 for g in gaps) / len(gaps):.0%} |")
    lines += ["", "| interview | rule | grader A | grader B |", "|---|---|---|---|"]
    lines += [f"| {r['interview_id']} ({r['bite_id']}) | {r['signal']} | {lab['a']} | {lab['b']} |" for r, lab in rows]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--write-transcripts", default=None, help="write the transcripts for the graders and stop")
    parser.add_argument("--reference", nargs=2, default=None, metavar=("FIRST", "FOLLOW_UPS"),
                        help="judge with a reference judge's recorded verdicts (first answers, follow-ups)")
    parser.add_argument("--labels", default=str(LABELS), help="the graders' signals for these transcripts")
    parser.add_argument("--scripts", default=str(SCRIPTS), help="the scripted interviews")
    parser.add_argument("--write-prompts", default=None, metavar="DIR",
                        help="write the reference judge's prompts (first answers, follow-ups) into DIR and stop")
    args = parser.parse_args(argv)
    scripts = read_jsonl(Path(args.scripts))
    if args.write_prompts:
        write_prompts(scripts, Path(args.write_prompts))
        return 0
    results = asyncio.run(run_interviews(scripts, args.reference))
    if args.write_transcripts:
        with open(args.write_transcripts, "w", encoding="utf-8") as handle:
            for r in results:  # the rule's signal stays out of what the graders read
                handle.write(json.dumps({k: r[k] for k in ("interview_id", "question", "transcript")},
                                        ensure_ascii=False) + "\n")
        print(f"Transcripts written to {args.write_transcripts}; no figures.")
        return 0
    labels = {row["interview_id"]: row for row in read_jsonl(Path(args.labels))}
    judge = "the reference judge (replayed, not shipped)" if args.reference else "the CPU judges (the embedding judge, the follow-up reader)"
    text = report(results, labels, judge)
    print(text)
    started = datetime.now(timezone.utc)
    log = OUT.read_text(encoding="utf-8") if OUT.exists() else "# Interview signal: the rule against interviewers\n"
    command = " ".join(argv if argv is not None else sys.argv[1:])
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(log + f"\n## {started:%Y-%m-%d %H:%M} UTC, commit {commit()}\n\nCommand: "
                   f"`.venv/bin/python -m bench.interview_signal {command}`. Machine: 2 cores, no GPU.\n\n{text}",
                   encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
