"""Load benchmark: simulated users run quizzes against the fake Discord; what they feel, and what it costs.

The fake Discord and the simulated users run in this process; the bot is a real
`coach run` process (discord.py, SQLite under a temporary folder, the shipped
content, LLM off) pointed at the fake, so the two sides are separate processes.

Two load models:

- `think` (default), like people: users arrive spread over `--arrive` seconds and
  think 2-8 s (uniform, mean 5 s) between one interaction landing and the next.
  Each runs `/quiz count:5` (answer, Next, ..., answer, Finish), then now and then
  `/stats`, `/bite` or `/leaderboard`, then the next quiz, until `--duration` is up.
  At 100 and 500 users that offers about 20 and 100 interactions/s.
- `closed`, the capacity test: every user clicks again the moment the last reply
  landed (no think time, arrivals over the first second, one quiz each); its
  interactions/s is what the bot sustains at saturation.

Per interaction kind: acknowledgement latency (push of INTERACTION_CREATE → the
bot's first response at the fake's REST endpoint) and reply latency (→ the reply
the user sees: a direct response, or the edit or follow-up after a defer, as the
fake accepted it). And the bot process's CPU seconds (utime + stime from
/proc/PID/stat over the measured window) per interaction handled.

    .venv/bin/python -m bench.bot_load --users 100 500 [--ref main] [--out docs/bench/bot_load.md]

`--ref REV` also runs the bot from a git worktree of REV (same fake, same users,
same seed) before each run of this checkout's bot, so BEFORE and AFTER sit side by
side in one invocation. `--py-spy DIR` samples the bot with py-spy over each measured
window (the stacks holding the GIL, raw format; `python -m bench.profile_summary FILE` ranks them);
`--profile DIR` runs the bot under cProfile instead (slower; not for latency numbers).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from bench.machine import machine, proc_stat
from bench.stats import percentile
from tests.fakediscord import FakeDiscord

REPO = Path(__file__).resolve().parents[1]

QUESTIONS = 5
KINDS = ("/quiz", "answer", "next", "finish", "/stats", "/bite", "/leaderboard", "/explain", "/interview",
         "interview turn", "end interview")
# After a quiz, each with this chance. A quiz is 11 interactions and the chances add up to 0.8, so
# the two /explain entries (an answer typed into the modal and graded) make ~10% of activities;
# one quiz in five is followed by a one-question interview: /interview, the first answer and one
# follow-up (graded turns), then End interview, as a member who stops early.
EXTRAS = (("/stats", 0.3), ("/bite", 0.3), ("/leaderboard", 0.2), ("/explain", 1.0), ("/explain", 0.35),
          ("/interview", 0.2))
INTERVIEW_TURNS = 2  # the first answer and one follow-up
# What the simulated users type when they explain: answers of the blind dev split (spoken, 20-220 words).
DEV_ANSWERS = REPO / "tests" / "data" / "grading_blind_dev.jsonl"
ACK_CODES = {4: "message", 5: "defer", 6: "defer update", 7: "update", 9: "modal"}


def rss_kib(pid: int, field_name: str = "VmHWM") -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field_name + ":"):
            return int(line.split()[1])
    return 0


def cpu_seconds(pid: int) -> float:
    """utime + stime of one process, in seconds."""
    fields = proc_stat(pid)
    return (int(fields[13]) + int(fields[14])) / os.sysconf("SC_CLK_TCK")


def descendants(pid: int) -> list[int]:
    """The bot's worker processes (pictures, speech), which do their CPU work apart from it."""
    out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True, text=True).stdout
    children = [int(p) for p in out.split()]
    return children + [g for c in children for g in descendants(c)]


def tree_cpu(pid: int) -> dict[int, float]:
    seconds = {}
    for p in [pid, *descendants(pid)]:
        try:
            seconds[p] = cpu_seconds(p)
        except (FileNotFoundError, ProcessLookupError):
            pass
    return seconds


# ----- the bot ---------------------------------------------------------------------------
def ref_checkout(rev: str) -> Path:
    """A detached git worktree of `rev` (made once, reused), for the BEFORE bot."""
    sha = subprocess.run(["git", "rev-parse", "--short", rev], cwd=REPO, capture_output=True, text=True,
                         check=True).stdout.strip()
    path = Path(tempfile.gettempdir()) / f"bot_load_ref_{sha}"
    if not path.exists():
        subprocess.run(["git", "worktree", "add", "--detach", str(path), sha], cwd=REPO, check=True,
                       capture_output=True)
    return path


async def start_bot(fake: FakeDiscord, folder: Path, code: Path = REPO, profile: Path | None = None,
                    warm: bool = True, settings: dict[str, str] | None = None):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "DATABASE_", "LLM_"))}
    env.update(DISCORD_TOKEN=fake.token, DISCORD_API_BASE=fake.api_base, DISCORD_GATEWAY_URL=fake.gateway_url,
               DATABASE_URL=f"sqlite+aiosqlite:///{folder}/coach.db", DATA_DIR=str(folder), LLM_ENABLED="false",
               METRICS_PORT="0", LOG_FORMAT="json", PYTHONPATH=str(code))
    env.update(settings or {})
    log = open(folder / "bot.log", "w")
    python = str(REPO / ".venv" / "bin" / "python")
    command = [python, "-m", "bot.cli", "run"]
    profile = profile or (Path(os.environ["BOT_LOAD_PROFILE"]) if os.environ.get("BOT_LOAD_PROFILE") else None)
    if profile:  # a cProfile of the bot, written on exit
        command = [python, "-m", "cProfile", "-o", str(profile), "-m", "bot.cli", "run"]
    # SIGINT stops the bot (and writes its profile); a benchmark started in the background
    # (nohup, `&`) would pass on an ignored SIGINT, so the default is restored in the child.
    proc = await asyncio.create_subprocess_exec(*command, env=env, cwd=folder, stdout=log, stderr=log,
                                                preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    await asyncio.wait_for(fake.commands_synced.wait(), 120)
    while not fake.gateways:
        await asyncio.sleep(0.05)
    # Measure the steady state: wait until the bot has loaded its models in the background
    # (`warm=False` skips the wait: a run of quizzes alone does not need them).
    deadline = time.monotonic() + 300
    while warm and "models loaded" not in (folder / "bot.log").read_text() and time.monotonic() < deadline:
        await asyncio.sleep(0.5)
    return proc, log


# ----- the users ---------------------------------------------------------------------------
def button_id(message: dict, label: str) -> str:
    for row in message["components"]:
        for item in row["components"]:
            if item.get("label") == label:
                return item["custom_id"]
    raise LookupError(label)


def has_button(message: dict | None, label: str) -> bool:
    return message is not None and any(item.get("label") == label for row in message.get("components") or []
                                       for item in row["components"])


@dataclass
class Run:
    fake: FakeDiscord
    think: tuple[float, float]  # seconds between a reply landing and the next interaction
    until: float  # fake.now() after which users stop
    extras: tuple[tuple[str, float], ...] = EXTRAS
    rounds: int | None = None  # quizzes per user (each with its extras), then the user stops; None: until `until`
    samples: list[tuple[str, object]] = field(default_factory=list)  # (kind, InteractionRecord)
    answers: list[tuple[str, str]] = field(default_factory=list)  # (bite id, answer) for /explain
    busy: dict[str, int] = field(default_factory=dict)  # gradings refused at once ("busy"), by kind

    def over(self) -> bool:
        return self.think[1] > 0 and self.fake.now() >= self.until

    async def pause(self, rng: random.Random) -> None:
        low, high = self.think
        if high > 0:
            await asyncio.sleep(rng.uniform(low, high))

    async def settle(self, kind: str, record) -> dict:
        self.samples.append((kind, record))
        return await self.fake.reply(record)

    async def press(self, user: dict, message_id: int, label: str, kind: str, expect: str) -> dict:
        """Click `label` and wait until the message shows `expect` (a deferred update lands later)."""
        message = self.fake.messages[message_id]
        shown = await self.settle(kind, await self.fake.click(user, message, button_id(message, label)))
        if not has_button(shown, expect):
            raise AssertionError(f"after {label}: {shown.get('content') or shown['embeds'][0].get('title')}")
        return shown

    async def quiz(self, user: dict, guild: dict, rng: random.Random) -> None:
        start = await self.settle("/quiz", await self.fake.slash(user, "quiz", guild=guild,
                                                                 options={"count": QUESTIONS}))
        if not has_button(start, "A"):
            raise AssertionError(f"/quiz: {start.get('content')}")
        message_id = int(start["id"])
        for position in range(QUESTIONS):
            last = position == QUESTIONS - 1
            await self.pause(rng)
            if self.over():
                return  # the user walks away mid-quiz: the measured window is over
            await self.press(user, message_id, rng.choice("ABCD"), "answer", "Finish" if last else "Next")
            await self.pause(rng)
            if self.over():
                return
            if last:
                message = self.fake.messages[message_id]
                shown = await self.settle("finish", await self.fake.click(user, message, button_id(message, "Finish")))
                if "Quiz finished" not in str(shown.get("embeds")):
                    raise AssertionError("no summary")
            else:
                await self.press(user, message_id, "Next", "next", "A")

    async def explain(self, user: dict, guild: dict, rng: random.Random) -> None:
        """An answer typed into /explain's answer box for a bite, graded by the bot (LLM off: the
        trained CPU judge, in its worker process)."""
        bite_id, text = rng.choice(self.answers)
        shown = await self.settle("/explain", await self.fake.submit(user, f"m:{bite_id}", {"answer": text}, guild=guild))
        if "Lots of answers are being graded" in str(shown.get("content")):
            self.busy["/explain"] = self.busy.get("/explain", 0) + 1  # refused at once: counted, reported
        elif "Score " not in str(shown.get("embeds")) and "explanations every" not in str(shown.get("content")):
            raise AssertionError(f"/explain: {shown.get('content') or shown.get('embeds')}")

    async def interview(self, user: dict, guild: dict, rng: random.Random) -> None:
        """A one-question interview: the first answer and each follow-up typed into the turn's
        answer box (graded), then End interview (the scorecard)."""
        shown = await self.settle("/interview", await self.fake.slash(user, "interview", guild=guild,
                                                                      options={"questions": 1}))
        for _ in range(INTERVIEW_TURNS):
            if not has_button(shown, "Answer"):
                break
            await self.pause(rng)
            if self.over():
                return
            modal = "im:" + button_id(shown, "Answer").removeprefix("ia:")  # the answer box the button opens
            _, text = rng.choice(self.answers)
            shown = await self.settle("interview turn", await self.fake.submit(user, modal, {"answer": text},
                                                                               guild=guild))
            if "Lots of answers are being graded" in str(shown.get("embeds")):
                self.busy["interview turn"] = self.busy.get("interview turn", 0) + 1
        if has_button(shown, "End interview"):
            message = self.fake.messages[int(shown["id"])]
            shown = await self.settle("end interview",
                                      await self.fake.click(user, message, button_id(message, "End interview")))
        if "Interview scorecard" not in str(shown.get("embeds")) and "interviews every" not in str(shown.get("content")):
            raise AssertionError(f"/interview: {shown.get('content') or shown.get('embeds')}")

    async def user(self, guild: dict, name: str, rng: random.Random, arrive_s: float, once: bool) -> None:
        user = self.fake.add_user(name)
        await asyncio.sleep(rng.uniform(0, arrive_s))
        done = 0
        while not self.over():
            await self.quiz(user, guild, rng)
            if once:
                return
            for command, chance in self.extras:
                if rng.random() < chance and not self.over():
                    await self.pause(rng)
                    if self.over():
                        break
                    if command == "/explain":
                        await self.explain(user, guild, rng)
                    elif command == "/interview":
                        await self.interview(user, guild, rng)
                    else:
                        await self.settle(command, await self.fake.slash(user, command[1:], guild=guild))
            done += 1
            if self.rounds is not None and done >= self.rounds:
                return
            await self.pause(rng)
            if self.over():
                return


def reply_time(fake: FakeDiscord, record) -> float | None:
    """Push → the reply the user sees (a direct answer, or the first edit/follow-up after a defer)."""
    if not record.callbacks:
        return None
    when, kind, _ = record.callbacks[0]
    if kind in (5, 6):
        if not record.landed:
            return None
        when = record.landed[0]
    return when - record.dispatched_at


def dev_answers() -> list[tuple[str, str]]:
    import json

    rows = [json.loads(line) for line in DEV_ANSWERS.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [(r["bite_id"], r["answer"]) for r in rows]


def summarize(fake: FakeDiscord, samples) -> dict[str, dict]:
    kinds = {}
    for kind in KINDS + ("all",):
        chosen = [r for k, r in samples if k == kind or kind == "all"]
        if not chosen:
            continue
        acks = [r.first_response_latency for r in chosen if r.first_response_latency is not None]
        replies = [t for t in (reply_time(fake, r) for r in chosen) if t is not None]
        row = {"count": len(chosen), "acknowledged": len(acks), "replied": len(replies),
               "deferred": sum(1 for r in chosen if r.response_type in (5, 6)),
               "rejected": sum(1 for r in chosen if r.rejected)}
        for name, values in (("ack", acks), ("reply", replies)):
            for q in (0.5, 0.95, 0.99):
                row[f"{name}_p{round(q * 100)}_ms"] = 1000 * percentile(values, q) if values else float("nan")
        kinds[kind] = row
    return kinds


async def run(users: int, guilds: int, seed: int, *, mode: str, arrive: float, duration: float,
              think: tuple[float, float], code: Path = REPO, profile: Path | None = None, warm: bool = True,
              extras: tuple[tuple[str, float], ...] = EXTRAS, spy: Path | None = None,
              rounds: int | None = None, settings: dict[str, str] | None = None) -> dict:
    """`rounds`: each user runs this many quizzes (each followed by its extras), then stops. With
    `duration=math.inf` as well, the work done does not depend on how fast the machine is (the
    test's use: a slow machine cannot leave an interaction kind out of the report). `settings`:
    environment settings for the bot (a variant of the same code, run side by side)."""
    fake = await FakeDiscord().start()
    servers = [fake.add_guild(f"Server {i}") for i in range(guilds)]
    closed = mode == "closed"
    with tempfile.TemporaryDirectory() as folder:
        proc, log = await start_bot(fake, Path(folder), code, profile, warm, settings)
        try:
            idle_rss = rss_kib(proc.pid, "VmRSS")
            rng = random.Random(seed)
            load = Run(fake, (0.0, 0.0) if closed else think, fake.now() + (0 if closed else duration), extras, rounds,
                       answers=dev_answers())
            sampler = None
            if spy:  # py-spy samples the bot over the measured window: the thread holding the GIL
                sampler = await asyncio.create_subprocess_exec(
                    str(REPO / ".venv" / "bin" / "py-spy"), "record", "--pid", str(proc.pid), "--format", "raw",
                    "--rate", "200", "--gil", "--nonblocking", "--output", str(spy),
                    stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL)
            cpu_before = tree_cpu(proc.pid)
            started = time.perf_counter()
            results = await asyncio.gather(*(
                load.user(servers[i % guilds], f"user{i}", random.Random(rng.random()), 1.0 if closed else arrive,
                          once=closed)
                for i in range(users)), return_exceptions=True)
            elapsed = time.perf_counter() - started
            cpu_after = tree_cpu(proc.pid)
            peak_rss = rss_kib(proc.pid)
            if sampler is not None:
                sampler.send_signal(signal.SIGINT)
                await sampler.wait()
        finally:
            proc.send_signal(signal.SIGINT)
            try:
                await asyncio.wait_for(proc.wait(), 60)
            except TimeoutError:
                proc.kill()
                await proc.wait()
            log.close()
            (Path(tempfile.gettempdir()) / "bot_load.log").write_text((Path(folder) / "bot.log").read_text())
            pipeline_ms = grading_times(Path(folder) / "coach.db")
    await fake.stop()
    failures = [r for r in results if isinstance(r, BaseException)]
    for failure in failures[:3]:
        print("user failed:", repr(failure), file=sys.stderr)
    kinds = summarize(fake, load.samples)
    handled = kinds["all"]["acknowledged"]
    bot_cpu = cpu_after.get(proc.pid, 0.0) - cpu_before.get(proc.pid, 0.0)
    workers_cpu = sum(v - cpu_before.get(p, 0.0) for p, v in cpu_after.items() if p != proc.pid)
    return {
        "code": ("this checkout" if code == REPO else code.name.removeprefix("bot_load_ref_"))
                + "".join(f", {k}={v}" for k, v in (settings or {}).items()),
        "mode": mode, "users": users, "kinds": kinds, "failed_users": len(failures), "elapsed_s": elapsed,
        "busy": dict(load.busy),
        "per_s": handled / elapsed, "bot_cpu_s": bot_cpu, "workers_cpu_s": workers_cpu,
        "cpu_ms_per_interaction": 1000 * bot_cpu / max(handled, 1),
        "idle_rss_mib": idle_rss / 1024, "peak_rss_mib": peak_rss / 1024, "spy": spy,
        "slowest": slowest_gradings(fake, load.samples, pipeline_ms),
    }


def grading_times(database: Path) -> dict[str, int]:
    """attempt key → the grading pipeline's own time (ms, `attempts.latency_ms`): from the
    answer entering the pipeline to its verdicts scored, so after the admission queue."""
    import sqlite3

    with sqlite3.connect(database) as connection:
        rows = connection.execute("SELECT attempt_key, latency_ms FROM attempts WHERE attempt_key IS NOT NULL")
        return {key: latency for key, latency in rows}


def slowest_gradings(fake: FakeDiscord, samples, pipeline_ms: dict[str, int], top: int = 6) -> list[dict]:
    """Where the slowest `/explain` replies spent their time: the pipeline's own time (worker
    queue and grading), the rest (admission queue, storing, rendering, Discord), the answer's
    length, and how many gradings were already in flight when it was sent."""
    graded = [r for k, r in samples if k in ("/explain", "interview turn")]
    spans = [(r.dispatched_at, r.dispatched_at + t) for r in graded if (t := reply_time(fake, r)) is not None]
    rows = []
    for kind, record in samples:
        reply = reply_time(fake, record)
        if kind != "/explain" or reply is None:
            continue
        data = record.payload["data"]
        bite_id = data["custom_id"].removeprefix("m:")
        answer = data["components"][0]["components"][0]["value"]
        pipeline = pipeline_ms.get(f"{record.payload['id']}:{bite_id}")
        at = record.dispatched_at
        rows.append({"id": record.payload["id"], "reply_ms": 1000 * reply, "pipeline_ms": pipeline,
                     "words": len(answer.split()), "in_flight": sum(1 for start, end in spans if start < at < end)})
    return sorted(rows, key=lambda row: -row["reply_ms"])[:top]


# ----- the report ----------------------------------------------------------------------------
def summary_table(rows: list[dict]) -> str:
    lines = [
        "| code | mode | users | interactions (acknowledged / sent) | interactions/s | deferred | ack p99 | "
        "reply p50 | reply p99 | quiz reply p99 (answer/next/finish) | grading reply p99 (/explain, turns) | "
        "gradings refused busy | bot CPU / interaction | failed users | bot RSS idle → peak |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        a = r["kinds"]["all"]
        quiz = max(r["kinds"][k]["reply_p99_ms"] for k in ("answer", "next", "finish") if k in r["kinds"])
        graded = [r["kinds"][k] for k in ("/explain", "interview turn") if k in r["kinds"]]
        grading = f"{max(k['reply_p99_ms'] for k in graded):.0f} ms" if graded else "–"
        asked = sum(k["count"] for k in graded)
        busy = sum(r.get("busy", {}).values())
        lines.append(
            f"| {r['code']} | {r['mode']} | {r['users']} | {a['acknowledged']}/{a['count']} | {r['per_s']:.1f} | "
            f"{a['deferred']} | {a['ack_p99_ms']:.0f} ms | {a['reply_p50_ms']:.0f} ms | {a['reply_p99_ms']:.0f} ms | "
            f"{quiz:.0f} ms | {grading} | {busy} of {asked} | {r['cpu_ms_per_interaction']:.1f} ms | {r['failed_users']} | "
            f"{r['idle_rss_mib']:.0f} → {r['peak_rss_mib']:.0f} MiB |")
    return "\n".join(lines)


def kinds_table(rows: list[dict]) -> str:
    lines = [
        "| code | mode | users | kind | count | deferred | ack p50 | ack p95 | ack p99 | reply p50 | reply p95 | "
        "reply p99 |",
        "|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        for kind, k in r["kinds"].items():
            lines.append(
                f"| {r['code']} | {r['mode']} | {r['users']} | {kind} | {k['count']} | {k['deferred']} | "
                f"{k['ack_p50_ms']:.0f} | {k['ack_p95_ms']:.0f} | {k['ack_p99_ms']:.0f} | {k['reply_p50_ms']:.0f} | "
                f"{k['reply_p95_ms']:.0f} | {k['reply_p99_ms']:.0f} |")
    return "\n".join(lines)


def profiles_section(rows: list[dict], top: int = 22) -> list[str]:
    """The top functions in each run's py-spy samples (bench.profile_summary), event loop plumbing left out."""
    from bench.profile_summary import spy_summary

    lines = []
    for r in rows:
        if r.get("spy") and Path(r["spy"]).exists():
            lines += [f"Where the bot's time goes — {r['code']}, {r['users']} users ({r['mode']}): py-spy samples of "
                      "the thread holding the GIL over the measured window; inclusive = share of samples with the "
                      "function on the stack (SQLAlchemy's ORM work runs in greenlets under `Store.run`'s "
                      "coroutines, so it shows under its own stacks).", "", "```",
                      spy_summary(Path(r["spy"]), top, project=False), "```", ""]
    return lines


def report(rows: list[dict], command: str, where: str) -> str:
    return "\n".join([
        "# Bot load: simulated users against the fake Discord",
        "",
        f"Command: `{command}`",
        f"Machine: {where}. The bot is one `coach run` process (SQLite, shipped content, LLM off: quizzes need no "
        "model); the fake Discord and the simulated users are the benchmark process, on the same cores.",
        "Load model `think`: users arrive over a minute and think 2–8 s (mean 5 s) between a reply landing and the "
        "next interaction; each runs `/quiz count:5` (answer, Next, …, answer, Finish), then now and then `/stats` "
        "(30%), `/bite` (30%), `/leaderboard` (20%), and the next quiz. `closed` (capacity): no think time, one quiz "
        "each, arrivals over one second.",
        "",
        summary_table(rows),
        "",
        "Per interaction kind (milliseconds):",
        "",
        kinds_table(rows),
        "",
        "ack = push of INTERACTION_CREATE → the bot's first response (Discord's 3-second rule); reply = → the reply "
        "the user sees (a direct response, or the edit / follow-up after a defer). `deferred`: acknowledged with a "
        "defer and answered later. Bot CPU = utime + stime of the `coach run` process over the measured window, "
        "divided by the interactions it acknowledged (worker processes excluded: the grader, picture and speech workers' CPU is "
        + ", ".join(f"{r['workers_cpu_s']:.1f} s" for r in rows) + " in the runs above).",
        "",
        *slowest_section(rows),
        *profiles_section(rows),
    ])


def slowest_section(rows: list[dict]) -> list[str]:
    lines = ["The slowest `/explain` replies of each run: pipeline = the grading pipeline's own time (`attempts."
             "latency_ms`: waiting in the worker and grading), the rest = the admission queue, storing, rendering "
             "and Discord; in flight = gradings (answers and turns) already sent and not yet answered.", "",
             "| code | users | reply | pipeline | rest | words | in flight |", "|---|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        for g in r.get("slowest", []):
            pipeline = g["pipeline_ms"]
            rest = f"{g['reply_ms'] - pipeline:.0f} ms" if pipeline is not None else "–"
            lines.append(f"| {r['code']} | {r['users']} | {g['reply_ms']:.0f} ms | "
                         f"{'–' if pipeline is None else f'{pipeline} ms'} | {rest} | {g['words']} | {g['in_flight']} |")
    return lines + [""]


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, nargs="+", default=[100, 500])
    parser.add_argument("--mode", choices=("think", "closed"), default="think",
                        help="think: people (2-8 s between clicks); closed: capacity (no think time)")
    parser.add_argument("--think", type=float, nargs=2, default=(2.0, 8.0), metavar=("MIN", "MAX"))
    parser.add_argument("--arrive", type=float, default=60.0, help="users arrive over this many seconds")
    parser.add_argument("--duration", type=float, default=120.0,
                        help="users stop (mid-quiz too) after this many seconds")
    parser.add_argument("--guilds", type=int, default=10)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--ref", default=None, help="also run the bot of this git revision first (BEFORE)")
    parser.add_argument("--profile", type=Path, default=None, help="cProfile the bot into DIR/<code>-<users>.prof")
    parser.add_argument("--py-spy", type=Path, default=None, dest="spy",
                        help="py-spy the bot over each measured window into DIR/<code>-<users>.txt")
    parser.add_argument("--variant", action="append", default=[], metavar="KEY=VALUE",
                        help="also run this checkout with this setting (repeat for several in one variant)")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    variant = dict(item.split("=", 1) for item in args.variant)
    codes = [(ref_checkout(args.ref), None)] if args.ref else []
    codes += [(REPO, None)] + ([(REPO, variant)] if variant else [])
    where = machine()
    rows = []
    for users in args.users:
        for number, (code, settings) in enumerate(codes):
            name = f"{'ref' if code != REPO else 'this'}-{users}" + (f"-variant{number}" if settings else "")
            profile = spy = None
            if args.profile:
                args.profile.mkdir(parents=True, exist_ok=True)
                profile = args.profile.resolve() / f"{name}.prof"
            if args.spy:
                args.spy.mkdir(parents=True, exist_ok=True)
                spy = args.spy.resolve() / f"{name}.txt"
            row = await run(users, args.guilds, args.seed, mode=args.mode, arrive=args.arrive,
                            duration=args.duration, think=tuple(args.think), code=code, profile=profile, spy=spy,
                            settings=settings)
            print({k: v for k, v in row.items() if k != "kinds"}, row["kinds"]["all"], flush=True)
            rows.append(row)
    command = "  ".join([".venv/bin/python -m bench.bot_load"] + [" ".join(sys.argv[1:])])
    text = report(rows, command.strip(), where)
    print(text)
    if args.out:
        args.out.write_text(text)


if __name__ == "__main__":
    asyncio.run(main())
