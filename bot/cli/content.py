"""`coach content check | export | reports`."""

from __future__ import annotations

import asyncio
import json
import sys


def check_command(args) -> int:
    from content.validate import check

    catalog, problems = check()
    messages = [str(p) for p in problems] + _stale_fit(catalog)
    for message in messages:
        print(message, file=sys.stderr)
    tracks = ", ".join(f"{t.id} ({len(t.bites)} bites, {len(t.questions)} questions)" for t in catalog.tracks.values())
    if messages:
        print(f"{len(messages)} problem(s) found in {tracks or 'no track'}", file=sys.stderr)
        return 1
    print(f"ok: {tracks}")
    return 0


def _stale_fit(catalog) -> list[str]:
    """The shipped catalog must have what its graders need: labelled training texts for every
    bite, and the key-point model (`coach grader train`), the injection net's reader (`coach
    grader train-net`) and grader fit (`coach grader fit`) built from the data as it is."""
    from coach.grading import attempt_reader, attempt_training, point_training
    from coach.grading.fit import ARTIFACT, MissingFit, load_fit, stale_reasons
    from coach.grading.point_model import ARTIFACT as MODEL

    if not catalog.bites:
        return []
    problems = point_training.uncovered_bites(catalog)
    problems += [f"{MODEL.name}: {reason}; run `coach grader train`" for reason in point_training.stale_reasons(catalog)]
    problems += [f"{attempt_reader.ARTIFACT.name}: {reason}; run `coach grader train-net`"
                 for reason in attempt_training.stale_reasons()]
    try:
        problems += [f"{ARTIFACT.name}: {reason}; run `coach grader fit`" for reason in stale_reasons(load_fit(), catalog, None)]
    except MissingFit as error:
        problems.append(str(error))
    return problems


def export_command(args) -> int:
    from content import export, load_catalog

    print(json.dumps(export(load_catalog()), ensure_ascii=False))
    return 0


def reports_command(args) -> int:
    from bot.services import build_services
    from coach.config import load_settings

    async def listing():
        services = await build_services(load_settings())  # no model is loaded: topics are lazy
        try:
            return await services.coach.account.list_reports()
        finally:
            await services.close()

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
