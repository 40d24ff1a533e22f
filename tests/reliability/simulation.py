"""Simulated Discord users driving the real bot through the fake Discord, and the
database audit against what they saw. Used by the random-kill test here and by the
soak benchmark (bench/soak.py).

A user behaves like a person in a Discord client: runs `/quiz`, clicks A-D and Next,
sometimes stops early, runs `/explain` and types an answer into the modal. When the
bot does not acknowledge a click (it is restarting), the user waits and runs `/quiz`
again, which resumes the running session. Every loop is bounded in count and time.
"""

from __future__ import annotations

import asyncio
import random
import re
import sqlite3
import time
from collections import Counter
from contextlib import closing
from dataclasses import dataclass, field

from tests.fakediscord.records import (
    RESPONSE_DEFER, RESPONSE_DEFER_UPDATE, RESPONSE_MESSAGE, RESPONSE_MODAL, RESPONSE_UPDATE,
)

LOADING = 1 << 7
ACK_WAIT_S = 10.0  # longer than Discord's 3 s: a late ack is seen as late, not as missing
REPLY_WAIT_S = 240.0  # a deferred grading may queue behind many others on two cores
MAX_ACTIONS_PER_USER = 400
ANSWERED_TITLE = re.compile(r"^\d+/\d+ · ")
ANSWER_ID = re.compile(r"^q:(\d+):(\d+):[0-3]$")
NOT_GIVEN = object()
OFF_TOPIC_ANSWER = "My favourite pasta sauce needs fresh basil, garlic, olive oil and plenty of parmesan."


@dataclass
class Ledger:
    """What the users saw, to audit the database against."""

    answered: set = field(default_factory=set)  # (session, position) shown as answered
    uncertain_answers: set = field(default_factory=set)  # clicks that got no reply
    graded: dict = field(default_factory=dict)  # submit interaction id -> "llm" | "embedding"
    uncertain_submits: set = field(default_factory=set)  # submits whose reply never came
    replies: Counter = field(default_factory=Counter)  # what kind of reply users got
    unacknowledged: list = field(default_factory=list)  # (time, interaction name, id)


@dataclass
class Outcome:
    kind: int
    message: dict | None = None
    modal: dict | None = None
    id: str = ""  # the interaction's id


def buttons(message: dict | None) -> list[dict]:
    if not message:
        return []
    return [c for row in message.get("components", []) for c in row.get("components", [])]


def find_button(message: dict | None, label: str) -> dict | None:
    return next((b for b in buttons(message) if b.get("label") == label), None)


def embed_title(message: dict | None) -> str:
    return (message or {}).get("embeds", [{}])[0].get("title", "") if (message or {}).get("embeds") else ""


async def resolve(fake, record, clicked: dict | None, ack_wait_s: float = ACK_WAIT_S,
                  reply_wait_s: float = REPLY_WAIT_S, *, edited_before: object = NOT_GIVEN) -> Outcome | None:
    """Wait for the bot's answer to one interaction; None if it never acknowledged.
    `edited_before`: the clicked message's edit time when it was clicked (an edit that
    lands while the acknowledgement is awaited is then still seen as the reply)."""
    try:
        kind = await record.wait(lambda r: r.response_type, ack_wait_s)
    except TimeoutError:
        return None
    if kind == RESPONSE_MODAL:
        return Outcome(kind, modal=record.modal)
    if kind == RESPONSE_MESSAGE:
        return Outcome(kind, message=fake.messages.get(record.original_message_id))
    if kind == RESPONSE_UPDATE:
        return Outcome(kind, message=fake.messages.get(int(clicked["id"])))
    if kind == RESPONSE_DEFER_UPDATE:
        before = clicked.get("edited_timestamp") if edited_before is NOT_GIVEN else edited_before

        def edited(r):
            message = fake.messages.get(int(clicked["id"]))
            if r.followups:
                return r.followups[0]
            return message if message and message.get("edited_timestamp") != before else None

        return Outcome(kind, message=await _wait(record, edited, reply_wait_s))
    if kind == RESPONSE_DEFER:

        def followed(r):
            if r.followups:
                return r.followups[0]
            message = fake.messages.get(r.original_message_id or 0)
            return message if message and not message["flags"] & LOADING else None

        return Outcome(kind, message=await _wait(record, followed, reply_wait_s))
    return Outcome(kind)


async def _wait(record, predicate, timeout: float):
    try:
        return await record.wait(predicate, timeout)
    except TimeoutError:
        return None


class SimUser:
    def __init__(self, fake, guild: dict, user: dict, catalog, ledger: Ledger, rng: random.Random, *,
                 deadline: float, think_s: float, explain_share: float, arrive_within_s: float = 30.0,
                 ack_wait_s: float = ACK_WAIT_S, reply_wait_s: float = REPLY_WAIT_S,
                 retry_pause_s: tuple[float, float] = (5.0, 10.0)):
        self.fake, self.guild, self.user, self.catalog = fake, guild, user, catalog
        self.ledger, self.rng, self.deadline = ledger, rng, deadline
        self.think_s, self.explain_share, self.arrive_within_s = think_s, explain_share, arrive_within_s
        self.ack_wait_s, self.reply_wait_s, self.retry_pause_s = ack_wait_s, reply_wait_s, retry_pause_s
        self.actions = 0

    def time_left(self) -> bool:
        return time.monotonic() < self.deadline and self.actions < MAX_ACTIONS_PER_USER

    async def think(self, scale: float = 1.0) -> None:
        await asyncio.sleep(self.rng.uniform(0.3, 1.7) * self.think_s * scale)

    async def run(self) -> None:
        await asyncio.sleep(self.rng.uniform(0, self.arrive_within_s))  # users do not all arrive at once
        while self.time_left():
            try:
                if self.rng.random() < self.explain_share:
                    await self.explain()
                else:
                    await self.quiz()
            except Exception as error:  # a simulator bug must not end the soak silently
                self.ledger.replies[f"simulator error: {type(error).__name__}"] += 1
            await self.think(scale=3)

    async def _interact(self, name: str, push, clicked: dict | None = None) -> Outcome | None:
        self.actions += 1
        edited_before = (clicked or {}).get("edited_timestamp")  # read before the bot can edit it
        record = await push
        outcome = await resolve(self.fake, record, clicked, self.ack_wait_s, self.reply_wait_s,
                                edited_before=edited_before)
        if outcome is None:
            self.ledger.unacknowledged.append((time.monotonic(), name, record.id))
            return None
        outcome.id = record.id
        return outcome

    async def slash(self, name: str, options: dict | None = None) -> Outcome | None:
        return await self._interact(f"/{name}", self.fake.slash(self.user, name, guild=self.guild, options=options))

    async def click(self, message: dict, label: str) -> Outcome | None:
        custom_id = find_button(message, label)["custom_id"]
        return await self._interact(f"button {label}", self.fake.click(self.user, message, custom_id), message)

    # ----- quiz ---------------------------------------------------------------------------
    async def quiz(self) -> None:
        started = await self.slash("quiz", {"count": 5})
        message = started.message if started else None
        for _ in range(30):  # at most 5 questions x (answer, next), with room for detours
            if message is None or not self.time_left():
                return
            if embed_title(message) in ("Quiz finished", "Quiz stopped"):
                self.ledger.replies["quiz summary"] += 1
                return
            await self.think()
            if find_button(message, "A") and self.rng.random() < 0.03:
                await self.click(message, "Stop")
                self.ledger.replies["quiz stopped"] += 1
                return
            if find_button(message, "A"):
                message = await self._answer(message)
            elif find_button(message, "Next") or find_button(message, "Finish"):
                label = "Next" if find_button(message, "Next") else "Finish"
                outcome = await self.click(message, label)
                message = outcome.message if outcome else None
            else:
                return

    async def _answer(self, message: dict) -> dict | None:
        letter = self.rng.choice("ABCD")
        custom_id = find_button(message, letter)["custom_id"]
        match = ANSWER_ID.match(custom_id)
        key = (int(match.group(1)), int(match.group(2))) if match else None
        self.ledger.uncertain_answers.add(key)  # until a reply says what happened
        outcome = await self.click(message, letter)
        if outcome is None:
            await asyncio.sleep(self.rng.uniform(*self.retry_pause_s))  # "the bot is not answering": /quiz again
            resumed = await self.slash("quiz", {"count": 5})
            return resumed.message if resumed else None
        if outcome.message is not None and ANSWERED_TITLE.match(embed_title(outcome.message)):
            self.ledger.uncertain_answers.discard(key)
            self.ledger.answered.add(key)
            self.ledger.replies["answer shown"] += 1
            return outcome.message
        if outcome.message is None:
            self.ledger.replies["answer acknowledged, then no reply (bot killed meanwhile)"] += 1
        else:
            text = outcome.message.get("content", "")
            self.ledger.replies["answer refused: " + (text.split("—")[0].strip()[:40] or "(no text)")] += 1
        resumed = await self.slash("quiz", {"count": 5})
        return resumed.message if resumed else None

    # ----- explanations -----------------------------------------------------------------
    def pick_answer(self) -> tuple[str, str]:
        bite = self.rng.choice(list(self.catalog.bites.values()))
        roll = self.rng.random()
        if roll < 0.45:
            return bite.id, bite.model_answer
        if roll < 0.8:
            return bite.id, " ".join(bite.point_texts[:2])
        if roll < 0.9:
            return bite.id, "I'm not sure, something about " + " ".join(bite.tags[:3])
        return bite.id, OFF_TOPIC_ANSWER

    async def explain(self) -> None:
        bite_id, text = self.pick_answer()
        if self.rng.random() < 0.7:
            prompt = await self.slash("explain", {"topic": self.catalog.bites[bite_id].title})
            if prompt is None or not find_button(prompt.message, "Answer"):
                return
            await self.think(scale=2)
            opened = await self.click(prompt.message, "Answer")
        else:
            opened = await self.slash("explain")
        if opened is None or opened.modal is None:
            return
        await self.think(scale=4)  # typing
        await self.submit(opened.modal["custom_id"], text)

    async def submit(self, custom_id: str, text: str) -> None:
        self.actions += 1
        record = await self.fake.submit(self.user, custom_id, {"answer": text}, guild=self.guild)
        self.ledger.uncertain_submits.add(record.id)  # until the reply arrives
        outcome = await resolve(self.fake, record, None, self.ack_wait_s, self.reply_wait_s)
        if outcome is None:
            self.ledger.unacknowledged.append((time.monotonic(), "modal answer", record.id))
        if outcome is None or outcome.message is None:
            return
        self.ledger.uncertain_submits.discard(record.id)
        message = outcome.message
        title, content = embed_title(message), message.get("content", "")
        if title.startswith("Score "):
            footer = message["embeds"][0].get("footer", {}).get("text", "")
            self.ledger.graded[record.id] = "embedding" if "fallback" in footer else "llm"
        elif "try again in" in content.lower():
            self.ledger.replies["explain cool-down"] += 1
        elif "doesn't seem to be about" in content:
            self.ledger.replies["explain off-topic"] += 1
        else:
            self.ledger.replies["explain other: " + content[:40]] += 1


# ----- the audit ----------------------------------------------------------------------------

def audit(db_path, ledger: Ledger) -> list[tuple[str, bool, str]]:
    """Check the database against what users saw; returns (check, passed, detail) rows."""
    with closing(sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)) as db:
        answers = Counter(db.execute("SELECT session_id, question_index FROM quiz_answers").fetchall())
        attempts = db.execute("SELECT attempt_key, grader, score, id FROM attempts").fetchall()
        xp = db.execute("SELECT source_key, amount FROM xp_events").fetchall()
        correct = {tuple(r) for r in db.execute("SELECT session_id, question_index FROM quiz_answers WHERE correct")}
        complete = {r[0] for r in db.execute(
            "SELECT id FROM quiz_sessions WHERE status = 'finished' AND position = json_array_length(question_ids)")}
    checks = []
    answered = {a for a in ledger.answered if a is not None}
    missing = [a for a in answered if answers[a] != 1]
    checks.append(("every answer a user saw is stored exactly once", not missing,
                   f"{len(answered)} answers seen; {len(missing)} missing or duplicated"))
    unseen = set(answers) - answered
    stray = unseen - ledger.uncertain_answers
    checks.append(("every stored answer was seen, or its reply never reached the user", not stray,
                   f"{len(unseen)} stored whose reply never arrived (late or a restart); {len(stray)} unexplained"))
    keys = Counter((key or "").split(":")[0] for key, *_ in attempts)
    missing_attempts = [i for i in ledger.graded if keys[i] != 1]
    checks.append(("every grade a user saw is stored exactly once", not missing_attempts,
                   f"{len(ledger.graded)} grades seen; {len(missing_attempts)} missing or duplicated"))
    unseen_attempts = [k for k in keys if k not in ledger.graded]
    stray_attempts = [k for k in unseen_attempts if k not in ledger.uncertain_submits]
    checks.append(("every stored grade was seen, or its reply never reached the user", not stray_attempts,
                   f"{len(unseen_attempts)} stored whose reply never arrived (late or a restart); "
                   f"{len(stray_attempts)} unexplained"))
    by_key = {(key or "").split(":")[0]: grader for key, grader, *_ in attempts}
    mislabelled = [i for i, shown in ledger.graded.items() if by_key.get(i) not in (None, shown)]
    checks.append(("a fallback grade is never shown as an LLM grade", not mislabelled,
                   f"{len(mislabelled)} replies disagree with the stored grader"))
    expected = {f"quiz:{s}:{p}": 10 for s, p in correct}
    expected.update({f"quiz:{s}:finish": 20 for s in complete})
    expected.update({f"attempt:{row_id}": 5 * score for _, _, score, row_id in attempts if score > 0})
    credited = Counter()
    for key, amount in xp:
        credited[key] += amount
    wrong_xp = {k for k in set(expected) | set(credited) if expected.get(k, 0) != credited.get(k, 0)}
    checks.append(("XP equals what the stored answers and grades earn (nothing twice)", not wrong_xp,
                   f"{sum(credited.values())} XP in {len(xp)} credits; {len(wrong_xp)} keys off"))
    return checks


def gradings_by_grader(db_path) -> dict[str, dict]:
    with closing(sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)) as db:
        rows = db.execute("SELECT grader, latency_ms FROM attempts").fetchall()
    out: dict[str, dict] = {}
    for grader in sorted({g for g, _ in rows}):
        latencies = sorted(ms for g, ms in rows if g == grader)
        out[grader] = {"count": len(latencies), "latency_ms_p50": latencies[len(latencies) // 2]}
    return out
