"""`coach grade`, `coach grader compare` and `coach grader qualify`: the grading pipeline on the
command line."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import TextIO

from coach.config import load_settings
from bot.cli.output import grade_text
from coach.grading.models import Grade, GradeError

# --- coach grade -----------------------------------------------------------------------


def _parse_line(raw: str) -> tuple[str, str | None]:
    """One batch line -> (answer, bite id or None); ValueError with a readable reason."""
    try:
        item = json.loads(raw)
    except ValueError as error:
        raise ValueError(f"not valid JSON: {error}") from None
    if not isinstance(item, dict):
        raise ValueError("expected a JSON object")
    answer, bite = item.get("answer"), item.get("bite")
    if not isinstance(answer, str):
        raise ValueError('"answer" must be a string')
    if bite is not None and not isinstance(bite, str):
        raise ValueError('"bite" must be a string or null')
    return answer, bite


async def _grade_batch(grader, lines: list[str], out: TextIO, concurrency: int) -> int:
    slots = asyncio.Semaphore(concurrency)

    async def one(number: int, raw: str) -> dict:
        try:
            answer, bite = _parse_line(raw)
        except ValueError as error:
            return {"error": str(error), "line": number}
        async with slots:
            try:
                result = await grader.grade(answer, bite)
            except Exception as error:  # one bad line must not end the run
                return {"error": f"grading failed: {error}", "line": number}
        if isinstance(result, GradeError):
            return {"error": result.message, "line": number}
        return result.to_json()

    numbered = [(n, raw) for n, raw in enumerate(lines, start=1) if raw.strip()]
    # All gradings are in flight together (bounded), so vLLM can batch them.
    results = await asyncio.gather(*(one(n, raw) for n, raw in numbered))
    for result in results:
        out.write(json.dumps(result, ensure_ascii=False) + "\n")
    out.flush()
    return 0


async def _grade(args, settings) -> int:
    from coach.grading.runtime import open_grader

    batch_lines = sys.stdin.read().splitlines() if args.answer == "-" else None
    async with open_grader(settings) as grader:
        _say_why_not_llm(grader)
        if batch_lines is not None:
            return await _grade_batch(grader, batch_lines, sys.stdout, settings.llm_max_concurrency)
        result = await grader.grade(args.answer, args.bite)
    if isinstance(result, GradeError):
        print(f"coach grade: {result.message}", file=sys.stderr)
        return 2
    print(json.dumps(result.to_json(), ensure_ascii=False) if args.json else grade_text(result))
    return 0


def _say_why_not_llm(grader) -> None:
    status = grader.llm_status
    if grader.llm_judge is not None and not status.serves:
        why = "; ".join(status.reasons) or status.state
        print(f"coach grade: the LLM is {status.state} ({why}); the CPU judge grades", file=sys.stderr)


def grade_command(args) -> int:
    if getattr(args, "audio", None):  # a recording: bot/cli/voice.py transcribes it, then the same pipeline grades
        from bot.cli.voice import grade_audio_command

        return grade_audio_command(args)
    if args.answer is None:
        print("coach grade: give the ANSWER (or - for JSON Lines on stdin), or --audio FILE", file=sys.stderr)
        return 2
    return asyncio.run(_grade(args, load_settings()))


# --- coach grader compare ----------------------------------------------------------------


async def _stored_rows(settings) -> list[dict]:
    """Stored attempts whose text the user allowed us to keep, as unlabelled eval rows."""
    from sqlalchemy import select

    from coach.store.models import Attempt
    from coach.store.store import Store

    async def kept(db):
        query = select(Attempt.id, Attempt.bite_id, Attempt.answer_text).where(Attempt.answer_text.is_not(None))
        return (await db.execute(query.order_by(Attempt.id))).all()

    async with Store(settings.database_url) as store:
        found = await store.read(kept)
    return [
        {"bite_id": bite_id, "answer": text, "score": None, "red_flag": None, "injection": None,
         "kind": "stored", "split": f"stored:{attempt_id}"}
        for attempt_id, bite_id, text in found
    ]


async def _compare(args, settings) -> dict:
    from coach.grading.eval import agreement, disagreements, evaluate, grade_rows, load_eval_set
    from coach.grading.runtime import open_grader
    from coach.topics import TopicFinder
    from content import default_catalog

    catalog = default_catalog()
    from bot.cli.fit import DEFAULT_DEV

    path = Path(args.eval or DEFAULT_DEV)
    if path.stem.endswith("test"):
        raise ValueError("the test split is read only by `python -m bench.grading --test`, which logs each read")
    rows = load_eval_set(path)[: getattr(args, "limit", None)]
    labelled = len(rows)
    if args.stored:
        rows += await _stored_rows(settings)
    topics = TopicFinder.from_settings(settings, catalog)  # one model load for both graders
    results = {}
    for role, url in (("baseline", args.baseline), ("candidate", args.candidate)):
        async with open_grader(settings, catalog=catalog, topics=topics, llm_url=url, trust_llm=True) as grader:
            results[role], _ = await grade_rows(grader, rows, concurrency=settings.llm_max_concurrency)
    report = {
        "baseline": args.baseline or "embedding",
        "candidate": args.candidate,
        "answers": len(rows),
        "agreement": agreement(results["baseline"], results["candidate"]),
        "against_labels": {
            role: evaluate(rows[:labelled], graded[:labelled]).to_json() for role, graded in results.items()
        },
        "disagreements": disagreements(rows, results["baseline"], results["candidate"]),
    }
    graders = report["against_labels"]["candidate"]["graders"]
    fell_back = sum(n for name, n in graders.items() if name != "llm")
    if fell_back:
        report["warning"] = f"{fell_back} candidate gradings fell back to the CPU grader (LLM unreachable?)"
    return report


def _print_compare(report: dict) -> None:
    a = report["agreement"]
    print(f"baseline {report['baseline']}  vs  candidate {report['candidate']}  ({report['answers']} answers)")
    print(f"agreement: QWK {a['qwk']}  exact {a['exact']}  within-1 {a['within_1']}  over {a['n']} graded by both")
    for role, metrics in report["against_labels"].items():
        print(f"{role:9} vs labels: QWK {metrics['qwk']}  exact {metrics['exact']}  graders {metrics['graders']}")
    if report.get("warning"):
        print(f"warning: {report['warning']}")
    print(f"{len(report['disagreements'])} disagreements:")
    for d in report["disagreements"]:
        print(f"  [{d['split']} #{d['index']}] {d['bite_id']} ({d['kind']}, label {d['label']}): "
              f"baseline {d['baseline']} / candidate {d['candidate']}: {d['answer']!r}")


def compare_command(args) -> int:
    report = asyncio.run(_compare(args, load_settings()))
    if args.json:
        print(json.dumps(report, ensure_ascii=False))
    else:
        _print_compare(report)
    return 0


# --- coach grader qualify ----------------------------------------------------------------


async def _qualify(args, settings):
    from coach.grading import qualification
    from coach.grading.qualifier import key_for, save
    from coach.grading.runtime import migrated_store, open_grader

    url = args.base_url or settings.llm_base_url
    async with open_grader(settings, llm_url=url, trust_llm=True) as grader:
        key = await key_for(grader)
        if key is None:
            raise ValueError(f"{url} does not serve a model named {settings.llm_model!r} (LLM_MODEL)")
        result = await qualification.run(grader, concurrency=min(qualification.CONCURRENCY, settings.llm_max_concurrency),
                                         stop_early=not args.all, model=key.model_id)
    async with migrated_store(settings) as store:  # the bot reads it from here: no second run
        await save(store, key, result)
    return result


def qualify_command(args) -> int:
    from coach.grading.qualification import Interrupted, table

    try:
        result = asyncio.run(_qualify(args, load_settings()))
    except (ValueError, Interrupted) as error:
        print(f"coach grader qualify: {error}", file=sys.stderr)
        return 2
    print(json.dumps(result.summary(), ensure_ascii=False) if args.json else table(result))
    return 0 if result.serves else 1
