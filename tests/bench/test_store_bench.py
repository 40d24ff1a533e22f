"""The database benchmark's own logic on the real PostgreSQL, at a size that runs in seconds:
both days are measured, a returning member's day writes as many transactions as a new one's,
and the report and its scratch database are cleaned up."""

from bench.store import postgres_cpu_s, report, run
from tests.fixtures.db import pg_admin, pg_base_url

async def _bench_databases() -> set[str]:
    admin = await pg_admin()
    try:
        return {r["datname"] for r in await admin.fetch("SELECT datname FROM pg_database WHERE datname LIKE 'coach_bench_%'")}
    finally:
        await admin.close()

async def test_two_member_days_are_measured_and_the_scratch_database_is_dropped():
    before = await _bench_databases()
    cpu_before = postgres_cpu_s()
    days = await run(pg_base_url(), members=4, concurrency=2, days=2, seed=3)
    assert [d.day for d in days] == [1, 2] and all(d.members == 4 for d in days)
    # 1 quiz start + 5 answers + finish + daily answer + 2 x (cool-down slot + attempt) + stats, at least.
    assert all(d.transactions >= 4 * 11 for d in days), [d.transactions for d in days]
    assert days[0].transactions == days[1].transactions  # the same work whether the member is new or returning
    assert days[0].bytes_grown > 0  # new rows in new pages (day 2 may fit in their free space)
    assert sum(d.pg_cpu_s for d in days) > 0
    assert {"attempts", "quiz_answers", "users"} <= {table for table, _ in days[-1].tables}
    assert postgres_cpu_s() >= cpu_before + sum(d.pg_cpu_s for d in days) * 0.5
    assert await _bench_databases() == before
    text = report(days, "cmd", 2, "15")
    assert text.count("\n| 1 | 4 |") == 1 and text.count("\n| 2 | 4 |") == 1 and "`attempts`" in text
