"""The restart sweep (never run by the tests): the real bot process is SIGKILLed and restarted
on the same database between every two steps of every multi-step flow, and each flow must
finish as if nothing happened. `make test` restarts once per flow (tests/e2e/test_restarts.py,
tests/reliability/); this tries every boundary.

    .venv/bin/python -m bench.restart_sweep          (also: python -m bench.soak --sweep)

Flows: a five-question quiz (/quiz, then answer and Next five times); /explain on a topic
(prompt, Answer, submit); /explain without one (submit, "Grade as" another bite); /forget
(a quiz answer, /forget, confirm). The LLM is off, so gradings come from the embedding
grader. Results: a JSON summary on stdout and docs/bench/restart_sweep.md (`--out`).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from tests.fakediscord import FakeDiscord
from tests.reliability.botproc import IDENTIFY_WINDOW_S, BotProcess, bot_environment
from tests.reliability.helpers import XP_CORRECT, XP_FINISH, button, buttons, click, slash, title

REPO = Path(__file__).resolve().parents[1]
REPLY_S = 240.0  # a first /explain on a fresh process loads the models
ANSWER = ("The KV cache keeps the attention keys and values of earlier tokens for every layer, so each decode step "
          "only computes the key and value for the newest token. It saves compute, but the cache memory grows with "
          "sequence length and batch size, and that memory often limits how many requests fit on the GPU.")


@dataclass
class Run:
    """One pass through a flow by a fresh member: what the steps leave for the next one."""

    fake: FakeDiscord
    guild: dict
    user: dict
    message: dict | None = None
    modal: str | None = None
    notes: dict = field(default_factory=dict)


async def submit(run: Run, custom_id: str) -> dict:
    record = await run.fake.submit(run.user, custom_id, {"answer": ANSWER}, guild=run.guild)
    await record.acknowledged(timeout=15)
    return await run.fake.reply(record, timeout=REPLY_S)


async def press(run: Run, label: str) -> dict:
    record = await run.fake.click(run.user, run.message, button(run.message, label)["custom_id"])
    await record.acknowledged(timeout=15)
    return await run.fake.reply(record, timeout=REPLY_S)


# ----- the flows: (name, steps, check); a step moves the run on, a check returns problems --------

def quiz_steps():
    async def start(run):
        _, run.message = await slash(run.fake, run.user, "quiz", guild=run.guild, options={"count": 5})

    def answer(letter):
        async def step(run):
            run.message = await click(run.fake, run.user, run.message, letter)
        return step

    async def onwards(run):
        label = "Finish" if any(b["label"] == "Finish" for b in buttons(run.message)) else "Next"
        run.message = await click(run.fake, run.user, run.message, label)

    steps = [("/quiz", start)]
    for n, letter in enumerate("ABCDA", start=1):
        steps += [(f"answer {n}", answer(letter)), (f"next {n}", onwards)]
    return steps


def check_quiz(run, db) -> list[str]:
    user_id = int(run.user["id"])
    answers = db("SELECT question_index, correct FROM quiz_answers WHERE user_id = ? ORDER BY question_index", user_id)
    xp = sum(a for (a,) in db("SELECT amount FROM xp_events WHERE user_id = ?", user_id))
    problems = []
    if title(run.message) != "Quiz finished":
        problems.append(f"ended on {title(run.message)!r}")
    if [a for a, _ in answers] != [0, 1, 2, 3, 4]:
        problems.append(f"answers stored {[a for a, _ in answers]}")
    if xp != XP_CORRECT * sum(c for _, c in answers) + XP_FINISH:
        problems.append(f"XP {xp}")
    return problems


def explain_topic_steps():
    async def prompt(run):
        _, run.message = await slash(run.fake, run.user, "explain", guild=run.guild, options={"topic": "kv cache"})

    async def open_box(run):
        record = await run.fake.click(run.user, run.message, button(run.message, "Answer")["custom_id"])
        await record.acknowledged(timeout=15)
        run.modal = (await run.fake.reply(record, timeout=REPLY_S))["custom_id"]

    async def answer(run):
        run.message = await submit(run, run.modal)

    return [("/explain topic", prompt), ("Answer", open_box), ("submit", answer)]


def check_graded(run, db) -> list[str]:
    embeds = run.message.get("embeds") or [{}]
    attempts = db("SELECT COUNT(*) FROM attempts WHERE user_id = ?", int(run.user["id"]))[0][0]
    problems = [] if embeds[0].get("title", "").startswith("Score ") else [f"no grade: {run.message.get('content')!r}"]
    expected = run.notes.get("attempts", 1)
    return problems + ([] if attempts == expected else [f"{attempts} attempts stored, expected {expected}"])


def explain_regrade_steps():
    async def answer(run):
        run.message = await submit(run, "m:-")

    async def grade_as(run):
        other = next(b for b in buttons(run.message) if b["label"].startswith("Grade as: "))
        run.notes.update(bite=other["label"].removeprefix("Grade as: "), attempts=2)
        run.message = await press(run, other["label"])

    return [("submit (no topic)", answer), ("Grade as", grade_as)]


def check_regraded(run, db) -> list[str]:
    problems = check_graded(run, db)
    description = (run.message.get("embeds") or [{}])[0].get("description", "")
    if f"Graded against **{run.notes.get('bite')}**" not in description:
        problems.append("not graded against the chosen bite")
    return problems


def forget_steps():
    async def start(run):
        _, run.message = await slash(run.fake, run.user, "quiz", guild=run.guild, options={"count": 5})
        run.message = await click(run.fake, run.user, run.message, "A")

    async def ask(run):
        _, run.message = await slash(run.fake, run.user, "forget", guild=run.guild)

    async def confirm(run):
        run.message = await press(run, "Delete my data")

    return [("quiz answer", start), ("/forget", ask), ("confirm", confirm)]


def check_forgotten(run, db) -> list[str]:
    left = db("SELECT COUNT(*) FROM quiz_answers WHERE user_id = ?", int(run.user["id"]))[0][0]
    said = run.message.get("content", "")
    return ([] if "deleted" in said else [f"reply {said[:60]!r}"]) + ([f"{left} answers kept"] if left else [])


FLOWS = [
    ("quiz", quiz_steps, check_quiz),
    ("/explain with a topic", explain_topic_steps, check_graded),
    ("/explain, then grade as another bite", explain_regrade_steps, check_regraded),
    ("/forget", forget_steps, check_forgotten),
]


# ----- the sweep ------------------------------------------------------------------------------------

class Sweep:
    def __init__(self, workdir: Path):
        self.workdir = workdir
        self.bots: list[BotProcess] = []
        self.started = time.monotonic()

    def log(self, message: str) -> None:
        print(f"[sweep {time.monotonic() - self.started:6.1f}s] {message}", file=sys.stderr, flush=True)

    def db(self, sql: str, *params):
        import sqlite3
        from contextlib import closing

        with closing(sqlite3.connect(f"file:{self.workdir / 'coach.db'}?mode=ro", uri=True, timeout=10)) as db:
            return db.execute(sql, params).fetchall()

    async def restart(self) -> float:
        began = time.monotonic()
        if self.bots:
            await self.bots[-1].kill()
        bot = BotProcess(self.fake, self.workdir, self.env, f"bot{len(self.bots) + 1}")
        self.bots.append(bot)
        await bot.start()
        return time.monotonic() - began

    async def run(self) -> dict:
        self.fake = await FakeDiscord(identify_window_s=IDENTIFY_WINDOW_S).start()
        self.env = bot_environment(self.fake, self.workdir, LLM_ENABLED="false", EXPLAIN_RATE_LIMIT="1000")
        guild, results, restarts = self.fake.add_guild("Sweep"), [], []
        try:
            await self.restart()
            for name, make_steps, check in FLOWS:
                steps = make_steps()
                for boundary in range(1, len(steps)):
                    run = Run(self.fake, guild, self.fake.add_user(f"member{len(results)}"))
                    problem = None
                    try:
                        for index, (label, step) in enumerate(steps):
                            if index == boundary:
                                restarts.append(await self.restart())
                            await step(run)
                        problems = check(run, self.db)
                    except Exception as error:  # reported as the boundary's failure; the sweep goes on
                        problems = [f"{type(error).__name__}: {str(error)[:120]}"]
                    problem = "; ".join(problems)
                    where = f"{steps[boundary - 1][0]} and {steps[boundary][0]}"
                    results.append({"flow": name, "restart_between": where, "ok": not problems, "problem": problem})
                    self.log(f"{name}: restart between {where}: {'ok' if not problems else problem}")
            errors = [line.get("event") for bot in self.bots for line in bot.errors()]
        finally:
            if self.bots:
                await self.bots[-1].stop()
            await self.fake.stop()
        return {"boundaries": results, "restarts": len(restarts),
                "restart_s": {"median": sorted(restarts)[len(restarts) // 2] if restarts else None,
                              "max": max(restarts, default=None)},
                "bot_errors": errors, "elapsed_s": round(time.monotonic() - self.started, 1)}


def write_report(result: dict, out: Path) -> None:
    rows = [f"| {r['flow']} | {r['restart_between']} | {'ok' if r['ok'] else 'FAILED: ' + r['problem']} |"
            for r in result["boundaries"]]
    passed = sum(r["ok"] for r in result["boundaries"])
    lines = [
        "# Restart sweep",
        "",
        "Produced by `bench/restart_sweep.py` (never part of `make test`): the real bot process (`coach run`) against",
        "the in-process fake Discord, SIGKILLed and restarted on the same SQLite file between every two steps of",
        "every multi-step flow, each pass by a fresh member; after the last step the reply and the database are",
        "checked (a finished quiz with five answers stored once and its XP once; one grade per submission, against",
        "the chosen bite; `/forget` deleting the member's answers). The LLM is off (embedding grader).",
        "",
        f"- Command: `{result['command']}`",
        f"- Date: {result['date']}; load average at start {result['load_before']:.1f}",
        f"- {passed} of {len(result['boundaries'])} boundaries passed; {result['restarts']} restarts, "
        f"SIGKILL to connected again median {result['restart_s']['median']:.1f} s, max {result['restart_s']['max']:.1f} s; "
        f"{result['elapsed_s']:.0f} s in all; errors logged by the bot: {len(result['bot_errors'])}",
        "",
        "| flow | restart between | result |",
        "|---|---|---|",
        *rows,
        "",
    ]
    out.write_text("\n".join(lines))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "bench" / "restart_sweep.md")
    parser.add_argument("--no-write", action="store_true", help="print the summary only")
    parser.add_argument("--workdir", type=Path, default=None)
    args = parser.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="sweep-"))
    workdir.mkdir(parents=True, exist_ok=True)
    load_before = os.getloadavg()[0]
    started = datetime.now(timezone.utc)
    result = asyncio.run(Sweep(workdir).run())
    result.update(command=" ".join(["python -m bench.restart_sweep", *(argv if argv is not None else sys.argv[1:])]),
                  date=started.strftime("%Y-%m-%d %H:%M UTC"), load_before=load_before)
    print(json.dumps(result, indent=1, default=str))
    if not args.no_write:
        write_report(result, args.out)
        print(f"wrote {args.out}", file=sys.stderr)
    return 0 if all(r["ok"] for r in result["boundaries"]) and not result["bot_errors"] else 1


if __name__ == "__main__":
    sys.exit(main())
