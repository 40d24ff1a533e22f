"""Keeps the served model's qualification (coach.grading.qualification) for a grader: reads the
verdict stored for (served model, prompt hash, rubric version), runs qualification in the
background when there is none, stores it, and sets `grader.llm_status`, which is what lets the
model's grades reach members. It never blocks start-up or a reply: until a verdict exists the
CPU judge grades.

One process runs a qualification at a time: the runner holds an expiring claim in the database;
another process waits for the stored verdict instead of running it again. The served model is
looked at again every `CHECK_EVERY`, so a model swapped behind the URL qualifies afresh.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import os
import socket
from dataclasses import dataclass
from datetime import timedelta

from prometheus_client import Gauge
from sqlalchemy import select
from sqlalchemy.dialects import postgresql, sqlite

from coach.grading import qualification
from coach.grading.fit import catalog_fingerprint
from coach.grading.qualification import Qualification
from coach.store.models import JudgeQualificationRow as Row
from coach.timeutil import utcnow

log = logging.getLogger(__name__)

CHECK_EVERY = timedelta(minutes=10)
CLAIM_TTL = timedelta(minutes=30)  # longer than a qualification takes on a slow server
WAIT_POLL_S = 15.0
CLAIM_KIND = "llm_qualification"

STATE = Gauge("coach_llm_judge_state", "1 for the served model's qualification state.", ["state"])
FIGURE = Gauge("coach_llm_judge_figure", "Qualification figures, per judge.", ["judge", "figure"])
STATES = ("off", "qualifying", "qualified", "disqualified")


@dataclass(frozen=True)
class Key:
    model_id: str  # the served name, with a hash of the weights and context length it reports
    prompt_hash: str
    rubric_version: str

    @property
    def text(self) -> str:
        """One short string for the key (the claim's key in the expiring state)."""
        return hashlib.sha256(f"{self.model_id}|{self.prompt_hash}|{self.rubric_version}".encode()).hexdigest()[:32]


async def key_for(grader) -> Key | None:
    """The key of what is served now, or None when the server does not list the model."""
    entry = await grader.llm_judge.client.served_model()
    if entry is None:
        return None
    weights = json.dumps([entry.get("root"), entry.get("max_model_len")], default=str)
    model_id = f"{entry['id']}#{hashlib.sha256(weights.encode()).hexdigest()[:8]}"
    rubric = json.dumps([catalog_fingerprint(grader.catalog), qualification.set_fingerprint(), grader.fit.version,
                         grader.cpu_label])
    return Key(model_id[:200], grader.llm_judge.prompt_hash, hashlib.sha256(rubric.encode()).hexdigest()[:16])


async def stored(store, key: Key) -> Qualification | None:
    async def read(db):
        row = await db.scalar(select(Row).where(Row.model_id == key.model_id, Row.prompt_hash == key.prompt_hash,
                                                Row.rubric_version == key.rubric_version))
        return None if row is None else Qualification.from_summary(row.result)

    return await store.read(read)


async def save(store, key: Key, result: Qualification) -> None:
    async def write(db):
        dialect = postgresql if db.bind.dialect.name == "postgresql" else sqlite
        values = dict(model_id=key.model_id, prompt_hash=key.prompt_hash, rubric_version=key.rubric_version,
                      state=result.state, result=result.summary(), measured_at=utcnow())
        statement = dialect.insert(Row).values(**values)
        await db.execute(statement.on_conflict_do_update(
            index_elements=[Row.model_id, Row.prompt_hash, Row.rubric_version],
            set_={"state": statement.excluded.state, "result": statement.excluded.result,
                  "measured_at": statement.excluded.measured_at}))

    await store.run(write)


def publish(status: Qualification) -> None:
    for state in STATES:
        STATE.labels(state).set(1.0 if status.state == state else 0.0)
    for figures in (status.llm, status.cpu):
        for name, value in (figures or {}).items():
            if isinstance(value, int | float) and not isinstance(value, bool):
                FIGURE.labels("llm" if figures is status.llm else "cpu", name).set(value)


class Qualifier:
    def __init__(self, grader, store, *, concurrency: int = qualification.CONCURRENCY, owner: str | None = None):
        self.grader = grader
        self.store = store
        self.concurrency = concurrency
        self.owner = owner or f"{socket.gethostname()}:{os.getpid()}"
        self._key: Key | None = None
        self._said_absent = False
        publish(grader.llm_status)

    async def refresh(self) -> Qualification:
        """Make `grader.llm_status` match what is served now; qualify it if nobody has."""
        key = await key_for(self.grader)
        if key is None:  # not served (yet): nothing to trust; the next check looks again
            if not self._said_absent:
                log.warning("the LLM server does not answer or does not serve the model; the CPU judge grades "
                            "until a served model qualifies", extra={"model": self.grader.llm_judge.client.model})
                self._said_absent = True
            return self.grader.llm_status
        self._said_absent = False
        if key == self._key and self.grader.llm_status.state != "qualifying":
            return self.grader.llm_status
        if key != self._key and self._key is not None:
            log.warning("the served model changed; qualifying it again", extra={"model": key.model_id})
        self._key = key
        self._apply(Qualification("qualifying", key.model_id))
        result = await stored(self.store, key)
        while result is None:
            if await self.store.claim_state(CLAIM_KIND, key.text, {"owner": self.owner}, CLAIM_TTL,
                                            owner=self.owner):
                try:
                    result = await qualification.run(self.grader, concurrency=self.concurrency, model=key.model_id)
                    await save(self.store, key, result)
                finally:
                    await self.store.delete_state(CLAIM_KIND, key.text)
            else:  # another process is qualifying this model: wait for its verdict
                await asyncio.sleep(WAIT_POLL_S)
                result = await stored(self.store, key)
        self._apply(result)
        return result

    async def watch(self, every: timedelta = CHECK_EVERY) -> None:
        """Refresh now and then every `every`, for the life of the process (a background task)."""
        while True:
            try:
                await self.refresh()
            except asyncio.CancelledError:
                raise
            except qualification.Interrupted as error:
                log.warning("%s; trying again in %s", error, every)
            except Exception:  # a failed check must not stop the bot; the CPU judge keeps grading
                log.exception("LLM qualification failed; the CPU judge keeps grading")
            await asyncio.sleep(every.total_seconds())

    def _apply(self, status: Qualification) -> None:
        before = self.grader.llm_status
        self.grader.llm_status = status
        publish(status)
        if status.state == before.state and status.model == before.model:
            return
        if status.state == "disqualified":
            log.warning("the served LLM is disqualified: members get the CPU judge's grades",
                        extra={"model": status.model, "reasons": status.reasons})
        elif status.state == "qualified":
            log.warning("the served LLM qualified: it grades members", extra={"model": status.model})
