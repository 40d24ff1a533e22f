"""Render a soak run's summary as docs/bench/soak.md."""

from __future__ import annotations

from pathlib import Path


def _row(*cells) -> str:
    return "| " + " | ".join(str(c) for c in cells) + " |"


def write_report(result: dict, out: Path) -> None:
    s, i, lat, b = result["settings"], result["interactions"], result["ack_latency_ms"], result["bot_view"]
    minutes_note = "" if s["minutes"] >= 10 and s["users"] >= 200 else (
        f"\n**This was a shortened run ({s['minutes']:g} min, {s['users']} users), not the full 10 min x 200 users.**\n")
    lines = [
        "# Soak benchmark",
        "",
        "Produced by `bench/soak.py` (never part of `make test`). The real bot process (`coach run`) against the",
        "in-process fake Discord and the local vLLM, simulated users mixing `/quiz` and `/explain`, while faults are",
        "injected at random; at the end the bot's database is audited against what the users saw.",
        minutes_note,
        f"- Command: `{result['command']}`",
        f"- Date: {result['date']}",
        f"- Machine: {result['machine']}; load average at start {result['load_before'][0]:.1f}"
        " (other engineers' jobs share these cores)",
        f"- Users: {s['users']} in {s['guilds']} servers; mean pause between clicks {s['think_s']} s; "
        f"{s['explain_share']:.0%} of activities are `/explain`; seed {s['seed']}",
        f"- LLM: {'vLLM started by the soak (SmolLM2-135M, CPU, ' + str(s['llm_threads'] or 'all') + ' compute threads)' if s['start_llm'] else 'external, at ' + s['llm_url'] + ' through a proxy the soak owns'}; "
        f"start-up times {result['llm_startup_s']} s; the bot's LLM timeout {s['llm_timeout_s']:g} s",
        f"- Bot: start-up (process start to gateway connected and commands synced) {result['bot_startup_s']} s; "
        f"resident memory at the end {result['bot_rss_mb']} MB",
        "",
        "## Results",
        "",
        _row("metric", "value"),
        _row("---", "---"),
        _row("run time (s)", result["elapsed_s"]),
        _row("interactions pushed by the fake Discord", i["pushed"]),
        _row("handled: acknowledged within Discord's 3 s", f"{i['acknowledged']} ({i['acknowledged_in_time_share']:.1%}; {i['per_second']}/s)"),
        _row("not answered while the bot was being restarted", i["unacknowledged_in_restart"]),
        _row("answered after 3 s (Discord refuses: 10062 Unknown interaction)", i["answered_after_3s"]),
        _row("never answered, outside the restart", i["never_answered_outside_restart"]),
        _row("acknowledgement latency p50 / p95 / p99 / max (ms), as the fake Discord saw it, acknowledged ones",
             " / ".join(str(lat.get(k, "-")) for k in ("p50", "p95", "p99", "max"))),
        _row("the same, by the bot's own clock (from its handler's start; ms)",
             " / ".join(str(round(b["ack_ms"].get(k, 0), 1)) for k in ("p50", "p95", "p99", "max"))),
        _row("event-loop lag of the soak process itself p50 / p99 / max (ms): the fake's clock runs on it",
             " / ".join(str(result["harness_loop_lag_ms"].get(k, "-")) for k in ("p50", "p99", "max"))),
        _row("database transactions retried (SQLite lock past the 10 s busy timeout)", b["db_retries"]),
        _row("responses the fake Discord refused, by reason",
             ", ".join(f"{k}: {v}" for k, v in i["rejections_by_reason"].items()) or "none"),
    ]
    for grader, info in result["gradings"].items():
        lines.append(_row(f"gradings stored: {grader}", f"{info['count']} (median grading {info['latency_ms_p50']} ms)"))
    lines.append(_row("grades shown to users, by label", ", ".join(f"{k}: {v}" for k, v in result["grades_shown"].items()) or "none"))
    lines.append(_row("429s served to the bot", result["rate_limits_served"]))
    lines.append(_row("error lines in the bot's log", sum(result["bot_errors"].values())))
    lines += ["", "What users got back (as the simulated users classified it):", "", _row("reply", "count"),
              _row("---", "---")]
    lines += [_row(k, v) for k, v in result["replies"].items()]
    lines += ["", "Outcomes in the bot's own log:", "", _row("outcome", "count"), _row("---", "---")]
    lines += [_row(k, v) for k, v in b["outcomes"].items()]
    lines += ["", "## Faults injected", "", _row("t (s)", "fault", "what happened"), _row("---", "---", "---")]
    lines += [_row(t, kind, detail) for t, kind, detail in result["faults"]]
    lines += ["", "## Audit of the database", "", _row("check", "result", "detail"), _row("---", "---", "---")]
    lines += [_row(name, "pass" if ok else "**FAIL**", detail) for name, ok, detail in result["audit"]]
    if result["bot_errors"]:
        lines += ["", "## Error lines in the bot's log", "", _row("message", "count"), _row("---", "---")]
        lines += [_row(k.replace("|", "/").replace("\n", " "), v) for k, v in sorted(result["bot_errors"].items(), key=lambda kv: -kv[1])[:10]]
    lines += ["", "Load average (1 min) during the run: "
              + ", ".join(f"{t:.0f}s: {v:.1f}" for t, v in result["load_average"][::3]), ""]
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(lines))
