"""`coach content check | export | reports`."""

from __future__ import annotations

import asyncio
import json
import sys


def check_command(args) -> int:
    from content.validate import check

    catalog, problems = check()
    for problem in problems:
        print(problem, file=sys.stderr)
    tracks = ", ".join(f"{t.id} ({len(t.bites)} bites, {len(t.questions)} questions)" for t in catalog.tracks.values())
    if problems:
        print(f"{len(problems)} problem(s) found in {tracks or 'no track'}", file=sys.stderr)
        return 1
    print(f"ok: {tracks}")
    return 0


def export_command(args) -> int:
    from content import export, load_catalog

    print(json.dumps(export(load_catalog()), ensure_ascii=False))
    return 0


def reports_command(args) -> int:
    from bot.services import open_coach

    async def listing():
        async with open_coach(load_models=False) as coach:
            return await coach.list_reports()

    reports = asyncio.run(listing())
    if getattr(args, "json", False):
        print(json.dumps({"reports": [_report_json(r) for r in reports]}, ensure_ascii=False))
        return 0
    if not reports:
        print("No reports filed.")
    for r in reports:
        row = _report_json(r)
        print(f"{row['created_at']}  {row['item_id']}  user {row['user_id']}: {row['note']}")
    return 0


def _report_json(report) -> dict:
    data = report if isinstance(report, dict) else getattr(report, "__dict__", {})
    keys = ("item_id", "user_id", "guild_id", "note", "created_at")
    return {k: (str(data.get(k)) if k == "created_at" else data.get(k)) for k in keys}
