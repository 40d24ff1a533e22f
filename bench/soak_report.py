"""Render a soak run's summary as docs/bench/soak.md."""

from __future__ import annotations

from pathlib import Path


def _row(*cells) -> str:
    return "| " + " | ".join(str(c) for c in cells) + " |"


def write_report(result: dict, out: Path) -> None:
    s, i, lat = result["settings"], result["interactions"], result["ack_latency_ms"]
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
        f"- LLM: {'vLLM started by the soak (SmolLM2-135M, CPU)' if s['start_llm'] else 'external, at ' + s['llm_url'] + ' through a proxy the soak owns'}; "
        f"start-up times {result['llm_startup_s']} s",
        f"- Bot: start-up (process start to gateway connected and commands synced) {result['bot_startup_s']} s; "
        f"resident memory at the end {result['bot_rss_mb']} MB",
        "",
        "## Results",
        "",
        _row("metric", "value"),
        _row("---", "---"),
        _row("run time (s)", result["elapsed_s"]),
        _row("interactions pushed", i["pushed"]),
        _row("interactions handled (acknowledged)", f"{i['acknowledged']} ({i['per_second']}/s)"),
        _row("not acknowledged (all / while the bot was restarting)", f"{i['unacknowledged']} / {i['unacknowledged_in_restart']}"),
        _row("acknowledged after Discord's 3 s", i["late_over_3s"]),
        _row("responses Discord rejected (400/404)", i["rejected_by_discord"]),
        _row("acknowledgement latency p50 / p95 / p99 / max (ms)",
             " / ".join(str(lat.get(k, "-")) for k in ("p50", "p95", "p99", "max"))),
    ]
    for grader, info in result["gradings"].items():
        lines.append(_row(f"gradings stored: {grader}", f"{info['count']} (median grading {info['latency_ms_p50']} ms)"))
    lines.append(_row("grades shown to users, by label", ", ".join(f"{k}: {v}" for k, v in result["grades_shown"].items()) or "none"))
    lines.append(_row("429s served to the bot", result["rate_limits_served"]))
    lines.append(_row("error lines in the bot's log", sum(result["bot_errors"].values())))
    lines += ["", "What users got back:", "", _row("reply", "count"), _row("---", "---")]
    lines += [_row(k, v) for k, v in result["replies"].items()]
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
