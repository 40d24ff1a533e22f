"""`coach interview [--json] [FILE]`: a scripted mock interview through the same flow as /interview.

The script is JSON Lines (FILE, or stdin): first the bite — `{"bite": "kv-cache"}` —, then the
answers in order: the first answer, then one per follow-up the interviewer asks, each
`{"answer": "..."}` or `"idk"` (passes the turn). It prints each turn's verdict and the
scorecard. The interview runs in a throwaway database: a script leaves no progress behind."""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
from pathlib import Path

from coach.config import load_settings

CLI_USER, CLI_GUILD = 1, 0


def read_script(lines: list[str]) -> tuple[str, list[str]]:
    """(bite id, answers) from the script's lines; raises ValueError naming the bad line."""
    items = []
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            items.append((number, json.loads(raw)))
        except json.JSONDecodeError as error:
            raise ValueError(f"line {number}: not JSON ({error.msg})") from None
    if not items or not isinstance(items[0][1], dict) or not isinstance(items[0][1].get("bite"), str):
        raise ValueError('line 1: the script starts with the bite, e.g. {"bite": "kv-cache"}')
    answers = []
    for number, item in items[1:]:
        if item == "idk":
            answers.append("idk")
        elif isinstance(item, dict) and isinstance(item.get("answer"), str):
            answers.append(item["answer"])
        else:
            raise ValueError(f'line {number}: an answer is {{"answer": "..."}} or "idk"')
    return items[0][1]["bite"], answers


def card_json(card) -> dict:
    return {
        "signal": card.signal, "ended": card.ended, "xp": card.xp, "coaching": list(card.coaching),
        "questions": [{"bite_id": q.bite_id, "score": q.score, "red_flag": q.red_flag, "follow_ups": q.follow_ups,
                       "points": [{"point": p, "kind": k, "outcome": o} for p, k, o in q.outcomes]}
                      for q in card.questions],
    }


async def run_script(settings, bite_id: str, answers: list[str], emit) -> int:
    from coach.engine import Coach
    from coach.grading.runtime import migrated_store, open_grader
    from coach.interview.flow import InterviewFlow
    from content import default_catalog

    catalog = default_catalog()
    if bite_id not in catalog.bites:
        print(f"coach interview: there is no bite called {bite_id!r}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as scratch:
        throwaway = settings.model_copy(update={"database_url": f"sqlite+aiosqlite:///{Path(scratch) / 'interview.db'}"})
        async with migrated_store(throwaway) as store, open_grader(settings, catalog=catalog) as grader:
            coach = Coach(store, catalog, throwaway)
            flow = InterviewFlow(coach, grader)
            step = await flow.start(CLI_USER, CLI_GUILD, catalog.bites[bite_id].track, 1, first=bite_id)
            for text in answers:
                if not step.state.open:
                    break
                asked, turn = flow.question_text(step.state), step.state.turn
                point = step.state.asking[1]
                step = await flow.answer(CLI_USER, step.state.interview_id, turn, text)
                if step.outcome == "bad_input":
                    print(f"coach interview: turn {turn}: {step.message}", file=sys.stderr)
                    return 2
                last = step.state.turns[-1]
                emit({"turn": turn, "asked": asked, "point": point,
                      "key_point": catalog.bites[bite_id].key_points[point].point if point is not None else None,
                      "verdict": step.line, "score": last.score, "status": last.statuses[0] if point is not None else None,
                      "grader": last.grader or None})
            if step.state.open:  # the script ran out of answers: the scorecard of what was answered
                step = await flow.end(CLI_USER, step.state.interview_id)
            emit({"scorecard": card_json(step.scorecard)})
    return 0


def interview_command(args) -> int:
    lines = (Path(args.script).read_text(encoding="utf-8") if args.script not in (None, "-") else sys.stdin.read())
    try:
        bite_id, answers = read_script(lines.splitlines())
    except ValueError as error:
        print(f"coach interview: {error}", file=sys.stderr)
        return 2

    def emit(item: dict) -> None:
        if args.json:
            print(json.dumps(item, ensure_ascii=False))
        elif "scorecard" in item:
            card = item["scorecard"]
            print(f"Signal: {card['signal'] or 'none (nothing answered)'}")
            for q in card["questions"]:
                print(f"  {q['bite_id']}: first answer {q['score']}/4, {q['follow_ups']} follow-ups")
                for p in q["points"]:
                    print(f"    [{p['outcome']}] {p['point']}")
            for line in card["coaching"]:
                print(f"  coaching: {line}")
        else:
            print(f"Turn {item['turn']}: {item['asked']}\n  -> {item['verdict']}"
                  + (f" ({item['score']}/4)" if item["score"] is not None else ""))

    return asyncio.run(run_script(load_settings(), bite_id, answers, emit))
