"""What one PostgreSQL carries: the database's CPU and the bytes per member-day.

A member-day is what an active member does in a day, through `Coach` exactly as the bot
calls it: a 5-question quiz (start, five answers, finish), the daily question, two graded
explanations (cool-down slot, attempt with its text kept) and `/stats`. Day 1 is a new
member's first day (their rows are created), day 2 the same members a day later. Each day
runs against a fresh database on the local PostgreSQL, migrated to head, with
`--concurrency` members at a time from this one process.

Measured per day: member-days/s from this process (bounded by this client's CPU, not the
database's), transactions (commits and rollbacks seen by the engine), the CPU seconds of every
PostgreSQL process (live backends and background workers, plus exited backends through the
postmaster's children times), the bot side's CPU (this process: SQLAlchemy and asyncpg),
and the database's growth.

    .venv/bin/python -m bench.store --members 2000 --concurrency 32 [--out docs/bench/store.md]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import time
import uuid
from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

import asyncpg
from sqlalchemy import event
from sqlalchemy.engine import make_url

from bench.collect import main as collect, publish
from bench.machine import machine, proc_stat
from coach.config import Settings
from coach.engine import Coach
from coach.grading.cooldown import GradingCooldown
from coach.store import Store
from content import default_catalog

DEFAULT_URL = "postgresql+asyncpg://postgres@127.0.0.1:5432/test"
TRACK = "inference"
MEMBERS_PER_GUILD = 10
EXPLANATION = ("Batching keeps the GPU busy: decode is memory-bound, so reading the weights once for many "
               "sequences multiplies throughput, while continuous batching lets new requests join each step "
               "instead of waiting for the slowest one in a static batch. ") * 2  # ≈500 characters, a typical answer
TICK = os.sysconf("SC_CLK_TCK")


def postgres_cpu_s() -> float:
    """CPU seconds of all PostgreSQL processes so far: the live ones, plus the exited
    backends the postmaster has reaped (its cutime/cstime)."""
    processes = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            fields = proc_stat(pid)
        except OSError:  # ended since the listing
            continue
        if fields[1] == "postgres":
            processes[pid] = fields
    total = 0.0
    for pid, fields in processes.items():
        # indices: pid 0, comm 1, state 2, ppid 3, ... utime 13, stime 14, cutime 15, cstime 16
        total += (int(fields[13]) + int(fields[14])) / TICK
        if fields[3] not in processes:  # the postmaster: add the backends that have exited
            total += (int(fields[15]) + int(fields[16])) / TICK
    return total


def own_cpu_s() -> float:
    times = os.times()
    return times.user + times.system


@dataclass
class DayResult:
    day: int
    members: int
    seconds: float
    transactions: int
    pg_cpu_s: float
    client_cpu_s: float
    bytes_grown: int
    tables: list[tuple[str, int]]


class Clock:
    def __init__(self, start: datetime):
        self.at = start

    def __call__(self) -> datetime:
        return self.at


async def member_day(coach: Coach, cooldown: GradingCooldown, user_id: int, guild_id: int, today: date,
                     rng: random.Random) -> None:
    started = await coach.quiz.start_quiz(user_id, guild_id, TRACK, 5)
    session = started.session or started.conflict
    for position in range(session.total):
        await coach.quiz.answer(user_id, session.session_id, position, rng.randrange(4))
    await coach.quiz.finish(session.session_id)
    await coach.daily.record_daily_answer(guild_id, today, user_id, rng.randrange(4))
    bites = list(coach.catalog.bites)
    for n in range(2):
        use = await cooldown.spend_use(user_id)
        assert use.spent, "the cool-down refused a member's first two gradings"
        await coach.progress.record_attempt(user_id, guild_id, rng.choice(bites), rng.randrange(5), "llm", 1800,
                                            EXPLANATION, attempt_key=f"bench:{today}:{user_id}:{n}")
    await coach.progress.stats(user_id, guild_id)


async def admin(url: str, database: str = "postgres") -> asyncpg.Connection:
    parsed = make_url(url)
    return await asyncpg.connect(host=parsed.host or "127.0.0.1", port=parsed.port or 5432,
                                 user=parsed.username or "postgres", password=parsed.password, database=database)


async def database_size(url: str, name: str) -> tuple[int, list[tuple[str, int]]]:
    connection = await admin(url, name)
    try:
        size = await connection.fetchval("SELECT pg_database_size($1)", name)
        tables = await connection.fetch(
            "SELECT relname, pg_total_relation_size(relid) AS bytes FROM pg_stat_user_tables ORDER BY bytes DESC")
        return int(size), [(row["relname"], int(row["bytes"])) for row in tables]
    finally:
        await connection.close()


def count_transactions(store: Store) -> list[int]:
    """A counter of the transactions the store's engine ends (the statistics collector
    flushes its counts up to 10 s late, so the client counts them)."""
    ended = [0]

    def one_more(*_):
        ended[0] += 1

    event.listen(store.engine.sync_engine, "commit", one_more)
    event.listen(store.engine.sync_engine, "rollback", one_more)
    return ended


async def run(url: str, members: int, concurrency: int, days: int, seed: int) -> list[DayResult]:
    name = f"coach_bench_{uuid.uuid4().hex[:10]}"
    connection = await admin(url)
    await connection.execute(f'CREATE DATABASE "{name}"')
    await connection.close()
    database_url = make_url(url).set(database=name).render_as_string(hide_password=False)
    catalog = default_catalog()
    clock = Clock(datetime(2026, 12, 1, 18, 0, tzinfo=timezone.utc))
    store = Store(database_url)
    settings = Settings(discord_token=None)
    results = []
    try:
        await store.upgrade()
        transactions = count_transactions(store)
        coach = Coach(store, catalog, settings, clock=clock, rng_seed=seed)
        cooldown = GradingCooldown(store, settings.explain_rate_limit, timedelta(seconds=settings.explain_rate_window_s),
                                   clock=clock)
        guilds = [10_000 + g for g in range(max(1, members // MEMBERS_PER_GUILD))]
        rng = random.Random(seed)
        for day in range(1, days + 1):
            today = clock.at.date()
            for guild in guilds:  # the poster's picks, outside the measured window
                await coach.daily.pick_daily(guild, today, TRACK)
            size0, _ = await database_size(url, name)
            commits0 = transactions[0]
            pg0, own0, wall0 = postgres_cpu_s(), own_cpu_s(), time.perf_counter()
            gate = asyncio.Semaphore(concurrency)

            async def one(user_id: int) -> None:
                async with gate:
                    await member_day(coach, cooldown, user_id, guilds[user_id % len(guilds)], today, rng)

            await asyncio.gather(*(one(1_000_000 + m) for m in range(members)))
            wall, pg, own = time.perf_counter() - wall0, postgres_cpu_s() - pg0, own_cpu_s() - own0
            commits1 = transactions[0]
            size1, tables = await database_size(url, name)
            results.append(DayResult(day, members, wall, commits1 - commits0, pg, own, size1 - size0, tables))
            clock.at += timedelta(days=1)
    finally:
        await store.dispose()
        connection = await admin(url)
        await connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await connection.close()
    return results


def report(results: list[DayResult], command: str, concurrency: int, server_version: str) -> str:
    lines = [
        "# What one PostgreSQL carries: CPU and bytes per member-day",
        "",
        f"Command: `{command}`  ",
        f"Date: {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC  ",
        f"Machine: {machine()}; PostgreSQL {server_version} (Debian defaults), on the same 2 cores as the client.",
        "",
        "A member-day, through `Coach` as the bot calls it: a 5-question quiz (start, 5 answers, finish), the daily "
        "question, two graded explanations (a cool-down slot each, the answer text kept), `/stats`. "
        f"{concurrency} members at a time from one Python process. Day 1: new members; day 2: the same members "
        "the next day. PostgreSQL CPU counts every PostgreSQL process, so it includes the WAL writer, "
        "the checkpointer and autovacuum.",
        "",
        "| day | member-days | wall | member-days/s (this client) | transactions | per member-day | "
        "PostgreSQL CPU per member-day | client CPU per member-day | growth per member-day |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        lines.append(
            f"| {r.day} | {r.members} | {r.seconds:.1f} s | {r.members / r.seconds:.0f} | {r.transactions} | "
            f"{r.transactions / r.members:.1f} | {1000 * r.pg_cpu_s / r.members:.1f} ms | "
            f"{1000 * r.client_cpu_s / r.members:.1f} ms | {r.bytes_grown / r.members / 1024:.1f} KiB |")
    last = results[-1]
    per_core = last.members / last.pg_cpu_s if last.pg_cpu_s else float("nan")
    lines += [
        "",
        f"One PostgreSQL core sustains ≈{per_core:.0f} member-days/s of this mix (day {last.day}: members over "
        "PostgreSQL CPU seconds); the client, not the database, bounds the rate above.",
        "",
        f"Largest tables after day {last.day} (whole database, indexes and TOAST included):",
        "",
        "| table | size |",
        "|---|---:|",
    ]
    lines += [f"| `{table}` | {size / 1024:.0f} KiB |" for table, size in last.tables[:8]]
    return "\n".join(lines) + "\n"


async def server_version(url: str) -> str:
    connection = await admin(url)
    try:
        return await connection.fetchval("SHOW server_version")
    finally:
        await connection.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default=os.environ.get("TEST_DATABASE_URL", DEFAULT_URL),
                        help="a PostgreSQL URL whose user may create and drop databases")
    parser.add_argument("--members", type=int, default=2000)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--days", type=int, default=2)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", type=Path, default=None, help="write the report here and into docs/benchmarks.md")
    args = parser.parse_args()
    results = asyncio.run(run(args.url, args.members, args.concurrency, args.days, args.seed))
    command = (f".venv/bin/python -m bench.store --members {args.members} --concurrency {args.concurrency} "
               f"--days {args.days}" + (f" --out {args.out}" if args.out else ""))
    text = report(results, command, args.concurrency, asyncio.run(server_version(args.url)))
    if args.out:
        publish(text, args.out)
        collect()
    else:
        print(text)


if __name__ == "__main__":
    main()
