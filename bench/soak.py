"""Soak benchmark (never run by the tests): the real bot process against the fake
Discord and the local vLLM, N simulated users for a while, with faults injected at
random — LLM server crashes (or, for an LLM this script did not start, a flapping
TCP proxy in front of it), 429s from the fake Discord, and one SIGKILL of the bot.
At the end it audits the bot's database against what the users saw.

    .venv/bin/python -m bench.soak --start-llm --minutes 10 --users 200
    .venv/bin/python -m bench.soak --llm-url http://127.0.0.1:8000/v1 --minutes 2 --users 20

`--sweep` runs the restart sweep instead (bench/restart_sweep.py): a SIGKILL and restart
between every two steps of every multi-step flow.

Everything talks to 127.0.0.1 only. Results: a JSON summary on stdout and the table
in docs/bench/soak.md (`--out`).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
import signal
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path
from urllib.parse import urlparse

from bench.machine import cpu_model
from bench.soak_report import write_report
from content import default_catalog
from tests.fakediscord import FakeDiscord
from tests.reliability.botproc import IDENTIFY_WINDOW_S, BotProcess, bot_environment
from tests.reliability.simulation import Ledger, SimUser, audit, gradings_by_grader

REPO = Path(__file__).resolve().parents[1]

RATE_LIMITED_ROUTES = [  # (name, path pattern, retry_after range in seconds, weight)
    ("interaction callback", r"/interactions/\d+/[^/]+/callback$", (0.05, 0.3), 3),
    ("followup message", r"/webhooks/\d+/[^/]+$", (0.2, 1.5), 1),
    ("edit original", r"/webhooks/\d+/[^/]+/messages/", (0.2, 1.5), 1),
]


class Clock:
    def __init__(self):
        self.start = time.monotonic()

    def t(self) -> float:
        return round(time.monotonic() - self.start, 1)


# ----- the LLM and its faults ---------------------------------------------------------------

class OwnedLLM:
    """A vLLM server this script starts with the project's launcher, and crashes (SIGKILL
    to its process group) and restarts as a fault."""

    mode = "vLLM started by the soak; faults = SIGKILL + restart"

    def __init__(self, workdir: Path, log, threads: int | None):
        self.workdir, self.log, self.threads = workdir, log, threads
        self.server = None
        self.startup_s: list[float] = []

    async def start(self) -> str:
        from serving.local.server import LocalServerConfig, LocalVLLM, free_port, prepare

        if self.server is None:
            self.python, self.model_dir = await asyncio.to_thread(prepare, log=self.log)
            extra = {"threads": self.threads} if self.threads else {}
            self.config = LocalServerConfig(port=free_port(), startup_timeout_s=600, **extra)
        self.server = LocalVLLM(self.python, self.model_dir, self.config, log_path=self.workdir / "vllm.log")
        began = time.monotonic()
        self.server.start()
        await asyncio.to_thread(self.server.wait_ready)
        self.startup_s.append(round(time.monotonic() - began, 1))
        return self.config.base_url

    async def fault(self, rng) -> str:
        process = self.server.process
        os.killpg(process.pid, signal.SIGKILL)
        await asyncio.to_thread(self.server.stop)
        began = time.monotonic()
        await self.start()
        return f"vLLM SIGKILLed; back after {time.monotonic() - began:.0f} s"

    async def stop(self) -> None:
        if self.server is not None:
            await asyncio.to_thread(self.server.stop)


class FlappingProxy:
    """A TCP proxy this script owns in front of an LLM it did not start: a fault cuts
    every open connection and refuses new ones for a while."""

    mode = "external LLM behind a proxy; faults = connections cut and refused"

    def __init__(self, target_url: str):
        parsed = urlparse(target_url)
        self.host, self.port, self.path = parsed.hostname, parsed.port or 80, parsed.path
        self.down_until = 0.0
        self.links: set[asyncio.StreamWriter] = set()
        self.startup_s: list[float] = []

    async def start(self) -> str:
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", 0)
        return f"http://127.0.0.1:{self._server.sockets[0].getsockname()[1]}{self.path}"

    async def _accept(self, reader, writer) -> None:
        if time.monotonic() < self.down_until:
            writer.transport.abort()
            return
        try:
            up_reader, up_writer = await asyncio.open_connection(self.host, self.port)
        except OSError:
            writer.transport.abort()
            return
        self.links |= {writer, up_writer}
        await asyncio.gather(self._pump(reader, up_writer), self._pump(up_reader, writer), return_exceptions=True)
        for w in (writer, up_writer):
            self.links.discard(w)
            w.transport.abort()

    @staticmethod
    async def _pump(reader, writer) -> None:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
        writer.transport.abort()

    async def fault(self, rng) -> str:
        seconds = rng.uniform(20, 60)
        self.down_until = time.monotonic() + seconds
        for writer in list(self.links):
            writer.transport.abort()
        return f"LLM connections cut and refused for {seconds:.0f} s"

    async def stop(self) -> None:
        if getattr(self, "_server", None) is not None:
            self._server.close()
        for writer in list(self.links):
            writer.transport.abort()


# ----- the run ------------------------------------------------------------------------------

class Soak:
    def __init__(self, args, workdir: Path):
        self.args, self.workdir = args, workdir
        self.rng = random.Random(args.seed)
        self.clock = Clock()
        self.events: list[tuple[float, str, str]] = []
        self.ledger = Ledger()
        self.bots: list[BotProcess] = []
        self.restart_window: tuple[float, float] | None = None  # monotonic times the bot was down
        self.load: list[tuple[float, float]] = []
        self.loop_lag: list[float] = []  # this process's event-loop lag: the fake measures on it

    def log(self, message: str) -> None:
        print(f"[soak {self.clock.t():7.1f}s] {message}", file=sys.stderr, flush=True)

    def event(self, kind: str, detail: str) -> None:
        self.events.append((self.clock.t(), kind, detail))
        self.log(f"{kind}: {detail}")

    async def start_bot(self) -> BotProcess:
        bot = BotProcess(self.fake, self.workdir, self.env, f"bot{len(self.bots) + 1}")
        self.bots.append(bot)
        await bot.start()
        return bot

    async def restart_bot(self) -> str:
        down = time.monotonic()
        await self.bots[-1].kill()
        bot = await self.start_bot()
        self.restart_window = (down, time.monotonic())
        return f"bot SIGKILLed; new process connected after {bot.startup_s:.1f} s"

    def inject_429(self) -> str:
        name, path, (low, high), _ = self.rng.choices(RATE_LIMITED_ROUTES, [r[3] for r in RATE_LIMITED_ROUTES])[0]
        fault = self.fake.inject(429, path=path, times=self.rng.randint(1, 5),
                                 retry_after=round(self.rng.uniform(low, high), 2))
        self.faults_429.append((name, fault))
        return f"next {fault.times} x {name} -> 429 (retry_after {fault.retry_after} s)"

    def fault_plan(self, duration: float) -> list[tuple[float, str]]:
        plan = [(duration * self.rng.uniform(0.4, 0.6), "bot restart")]
        for i in range(self.args.llm_faults):
            span = duration * 0.7 / max(1, self.args.llm_faults)
            plan.append((duration * 0.1 + span * i + self.rng.uniform(0, span * 0.5), "llm fault"))
        offset = self.rng.uniform(10, 30)
        while offset < duration:
            plan.append((offset, "discord 429"))
            offset += self.rng.uniform(15, 45)
        return sorted(plan)

    async def chaos(self, duration: float) -> None:
        running = []
        for offset, kind in self.fault_plan(duration):
            await asyncio.sleep(max(0.0, self.clock.start + offset - time.monotonic()))
            if kind == "discord 429":
                self.event(kind, self.inject_429())
            else:
                job = self.restart_bot() if kind == "bot restart" else self.llm.fault(self.rng)
                running.append(asyncio.create_task(self._timed(kind, job)))
        await asyncio.gather(*running)

    async def _timed(self, kind: str, job) -> None:
        self.event(kind, "begins")
        try:
            self.event(kind, await job)
        except Exception as error:  # report it; the soak goes on
            self.event(kind, f"FAILED: {type(error).__name__}: {error}")

    async def sample_load(self, until: float) -> None:
        while time.monotonic() < until:
            self.load.append((self.clock.t(), os.getloadavg()[0]))
            await asyncio.sleep(10)

    async def sample_loop_lag(self, until: float, every_s: float = 0.25) -> None:
        while time.monotonic() < until:
            began = time.monotonic()
            await asyncio.sleep(every_s)
            self.loop_lag.append(time.monotonic() - began - every_s)

    async def run(self) -> dict:
        args = self.args
        self.llm = OwnedLLM(self.workdir, self.log, args.llm_threads) if args.start_llm else FlappingProxy(args.llm_url)
        self.log(f"starting the LLM side ({self.llm.mode})")
        self.fake = None
        try:
            llm_url = await self.llm.start()
            self.fake = await FakeDiscord(identify_window_s=IDENTIFY_WINDOW_S).start()
            self.faults_429: list = []
            guilds = [self.fake.add_guild(f"Soak {i}") for i in range(args.guilds)]
            self.env = bot_environment(self.fake, self.workdir, LLM_BASE_URL=llm_url, LLM_TIMEOUT_S=str(args.llm_timeout_s))
            await self.start_bot()
            self.log(f"bot connected after {self.bots[0].startup_s:.1f} s; users start")
            catalog = default_catalog()

            self.clock = Clock()
            duration = args.minutes * 60
            deadline = time.monotonic() + duration
            users = [
                SimUser(self.fake, guilds[i % len(guilds)], self.fake.add_user(f"user{i}"), catalog, self.ledger,
                        random.Random(self.rng.random()), deadline=deadline, think_s=args.think_s,
                        explain_share=args.explain_share)
                for i in range(args.users)
            ]
            tasks = [asyncio.create_task(u.run()) for u in users]
            chaos = asyncio.create_task(self.chaos(duration))
            sampler = asyncio.create_task(self.sample_load(deadline))
            lag = asyncio.create_task(self.sample_loop_lag(deadline))
            await asyncio.wait(tasks, timeout=duration + args.drain_s)
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, chaos, sampler, lag, return_exceptions=True)
            elapsed = self.clock.t()
            self.log("users done; stopping the bot and auditing")
            rss_mb = bot_rss_mb(self.bots[-1])
            await self.bots[-1].stop()
            return self.summary(elapsed, rss_mb)
        finally:  # never leave a bot or a vLLM behind, also on Ctrl-C or an error
            for bot in self.bots:
                await bot.stop()
            await self.llm.stop()
            if self.fake is not None:
                await self.fake.stop()

    def summary(self, elapsed: float, rss_mb: float | None) -> dict:
        records = list(self.fake.interactions.values())
        acked = [r for r in records if r.callbacks]
        latencies = sorted(r.first_response_latency for r in acked)
        down = self.restart_window
        unanswered = [r for r in records if not r.callbacks]
        in_restart = [r for r in unanswered
                      if down and down[0] - 1 <= r.dispatched_at - self.fake.skew <= down[1] + 1]
        too_late = [r for r in unanswered if any(what == "late" for what, *_ in r.rejected)]
        rejections = _count(what for r in records for what, *_ in r.rejected)
        bot_errors: dict[str, int] = {}
        for bot in self.bots:
            for line in bot.errors():
                key = str(line.get("event", ""))[:80]
                bot_errors[key] = bot_errors.get(key, 0) + 1
        lags = sorted(self.loop_lag)
        return {
            "elapsed_s": elapsed,
            "interactions": {
                "pushed": len(records), "acknowledged": len(acked),
                "per_second": round(len(acked) / elapsed, 1) if elapsed else 0,
                "unacknowledged": len(unanswered), "unacknowledged_in_restart": len(in_restart),
                "answered_after_3s": len(too_late),
                "never_answered_outside_restart": len(unanswered) - len(in_restart) - len(too_late),
                "rejections_by_reason": rejections,
                "acknowledged_in_time_share": round(len(acked) / len(records), 4) if records else None,
            },
            "ack_latency_ms": {name: round(1000 * pct(latencies, q), 1) for name, q in
                               (("p50", 0.5), ("p95", 0.95), ("p99", 0.99), ("max", 1.0))} if latencies else {},
            "bot_view": bot_view(self.bots),
            "harness_loop_lag_ms": {name: round(1000 * pct(lags, q), 1) for name, q in
                                    (("p50", 0.5), ("p99", 0.99), ("max", 1.0))} if lags else {},
            "gradings": gradings_by_grader(self.bots[-1].workdir / "coach.db"),
            "grades_shown": dict(sorted(_count(self.ledger.graded.values()).items())),
            "replies": dict(self.ledger.replies.most_common()),
            "faults": self.events,
            "rate_limits_served": sum(f.hits for _, f in self.faults_429),
            "llm_startup_s": self.llm.startup_s,
            "audit": audit(self.workdir / "coach.db", self.ledger),
            "bot_startup_s": [b.startup_s for b in self.bots],
            "bot_rss_mb": rss_mb,
            "bot_errors": bot_errors,
            "load_average": self.load,
        }


def pct(sorted_values: list[float], q: float) -> float:
    return sorted_values[min(len(sorted_values) - 1, int(q * len(sorted_values)))]


def _count(values) -> dict:
    out: dict = {}
    for v in values:
        out[v] = out.get(v, 0) + 1
    return out


def bot_view(bots: list[BotProcess]) -> dict:
    """The bot's own log: its acknowledgement times (from the handler's start), its
    outcomes, and how often SQLite's lock outlasted the busy timeout."""
    acks, outcomes, lock_retries = [], {}, 0
    for bot in bots:
        for line in bot.log_lines():
            if line.get("event") == "interaction":
                outcomes[line.get("outcome")] = outcomes.get(line.get("outcome"), 0) + 1
                if line.get("ack_ms") is not None:
                    acks.append(line["ack_ms"])
            elif "database transaction failed" in str(line.get("event")):
                lock_retries += 1
    acks.sort()
    return {"ack_ms": {name: pct(acks, q) for name, q in (("p50", 0.5), ("p95", 0.95), ("p99", 0.99), ("max", 1.0))}
            if acks else {}, "outcomes": dict(sorted(outcomes.items(), key=lambda kv: -kv[1])),
            "db_retries": lock_retries}


def bot_rss_mb(bot: BotProcess) -> float | None:
    try:
        status = Path(f"/proc/{bot.proc.pid}/status").read_text()
    except (OSError, AttributeError):
        return None
    line = next((x for x in status.splitlines() if x.startswith("VmRSS:")), "")
    return round(int(line.split()[1]) / 1024, 1) if line else None


def machine() -> str:
    model = cpu_model()
    mem_gib = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return f"{os.cpu_count()} cores ({model}), {mem_gib:.0f} GiB RAM, no GPU, {platform.platform()}"


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--users", type=int, default=200)
    p.add_argument("--minutes", type=float, default=10.0)
    p.add_argument("--guilds", type=int, default=5)
    p.add_argument("--llm-url", default="http://127.0.0.1:8000/v1", help="an LLM already running (proxied)")
    p.add_argument("--start-llm", action="store_true", help="start vLLM with serving.local and crash it as a fault")
    p.add_argument("--llm-faults", type=int, default=2)
    p.add_argument("--llm-threads", type=int, default=None, help="vLLM compute threads (default: every core)")
    p.add_argument("--llm-timeout-s", type=float, default=30.0, help="the bot's LLM_TIMEOUT_S")
    p.add_argument("--think-s", type=float, default=2.0, help="mean pause between a user's clicks")
    p.add_argument("--explain-share", type=float, default=0.25, help="share of activities that are /explain")
    p.add_argument("--drain-s", type=float, default=120.0, help="time after the end for replies in flight")
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--workdir", type=Path, default=None)
    p.add_argument("--out", type=Path, default=REPO / "docs" / "bench" / "soak.md")
    p.add_argument("--no-write", action="store_true", help="print the summary only")
    p.add_argument("--sweep", action="store_true", help="run the restart sweep (bench/restart_sweep.py) instead")
    return p.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)
    if args.sweep:
        from bench import restart_sweep

        return restart_sweep.main(["--no-write"] if args.no_write else [])
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="soak-"))
    workdir.mkdir(parents=True, exist_ok=True)
    started = datetime.now(timezone.utc)
    load_before = os.getloadavg()
    result = asyncio.run(Soak(args, workdir).run())
    result.update(command="python -m " + " ".join(["bench.soak", *(argv or sys.argv[1:])]),
                  date=started.strftime("%Y-%m-%d %H:%M UTC"), machine=machine(), load_before=load_before,
                  workdir=str(workdir), settings=vars(args) | {"workdir": str(workdir), "out": str(args.out)})
    print(json.dumps(result, indent=1, default=str))
    if not args.no_write:
        write_report(result, args.out)
        print(f"wrote {args.out}", file=sys.stderr)
    return 0 if all(ok for _, ok, _ in result["audit"]) else 1


if __name__ == "__main__":
    sys.exit(main())
