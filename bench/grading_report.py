"""Tables for bench.grading: the rubric's ceiling, verdicts against gold, grades against gold."""

from __future__ import annotations

from collections import Counter

import numpy as np

from coach.grading.eval import quadratic_weighted_kappa
from coach.grading.calibration import gold_scores, graded
from coach.grading.models import Grade, OffTopic

STATUSES = ("covered", "partial", "missing", "wrong")
GRADE_METRICS = [
    ("n", "answers graded"), ("qwk", "QWK"), ("exact", "exact"), ("within_1", "within 1"),
    ("mean_offset", "mean offset (leniency)"), ("false_red_flags", "red_flag on answers without the mistake"),
    ("red_flag_recall", "red-flag recall (sure)"), ("red_flag_precision", "red-flag precision (sure)"),
    ("red_flag_possible_recall", "mistakes at least shown as possible"),
    ("injection_catch_rate", "injections given no points"), ("latency_p50_ms", "latency p50 (ms)"),
    ("latency_p95_ms", "latency p95 (ms)"), ("graders", "answered by"),
]
VERDICT_METRICS = [
    ("points", "key-point verdicts compared"), ("status_agreement", "status agreement"),
    ("status_kappa", "status kappa (ordinal, quadratic)"),
    *[(f"recall_{s}", f"gold {s} given {s}") for s in STATUSES],
    ("purpose_agreement", "purpose agreement"), ("red_flag_agreement", "red flag (sure or possible) agreement"),
    ("injection_agreement", "injection agreement"), ("confusion", "gold -> judge counts"),
]
_ORDINAL = {"wrong": 0, "missing": 0, "partial": 1, "covered": 2}


def rubric_ceiling(rows: list[dict], catalog, rule) -> dict:
    g, p = np.array([r["score"] for r in graded(rows)]), gold_scores(rows, catalog, rule)
    return {"n": len(g), "qwk": quadratic_weighted_kappa(list(g), list(p)), "exact": float((g == p).mean()),
            "mean_offset": float((p - g).mean())}


def judge_vs_gold(rows: list[dict], results: list) -> dict:
    pairs, purpose, flag, injection = [], [], [], []
    for row, result in zip(rows, results):
        if isinstance(result, OffTopic):
            injection.append(row["injection"])  # turned away: no points, like a caught injection
            continue
        if not isinstance(result, Grade):
            continue
        pairs += list(zip(row["key_points"], [kp.status for kp in result.key_points]))
        purpose.append(row["purpose"] == result.purpose)
        flag.append(row["red_flag"] == (result.red_flag or result.red_flag_possible))
        injection.append(row["injection"] == result.injection)
    counts = Counter(pairs)
    out = {
        "points": len(pairs),
        "status_agreement": sum(g == j for g, j in pairs) / len(pairs) if pairs else None,
        "status_kappa": quadratic_weighted_kappa([_ORDINAL[g] for g, _ in pairs], [_ORDINAL[j] for _, j in pairs], 3)
        if pairs else None,
        "purpose_agreement": float(np.mean(purpose)) if purpose else None,
        "red_flag_agreement": float(np.mean(flag)) if flag else None,
        "injection_agreement": float(np.mean(injection)) if injection else None,
        "confusion": "; ".join(f"{g}->{j} {n}" for (g, j), n in sorted(counts.items()) if g != j) or "-",
    }
    for s in STATUSES:
        gold_s = [j for g, j in pairs if g == s]
        out[f"recall_{s}"] = sum(j == s for j in gold_s) / len(gold_s) if gold_s else None
    return out


# The hard kinds and what an interviewer gives them (issue #27's done-when), per judge.
KIND_TARGETS = [
    ("misconception", "confident misconceptions scored <= 1", lambda s: s <= 1),
    ("buzzword", "buzzword lists scored <= 1", lambda s: s <= 1),
    ("neighbour", "neighbouring concepts scored <= 1", lambda s: s <= 1),
    ("strong_short", "strong short answers scored >= 3", lambda s: s >= 3),
]


def by_kind(rows: list[dict], results: list) -> dict:
    """The done-when figures by kind of answer, and the sure red flag on clean and flawed answers."""
    out: dict = {}
    scored = [(r, g) for r, g in zip(rows, results) if isinstance(g, Grade)]
    for kind, label, ok in KIND_TARGETS:
        of_kind = [g.score for r, g in scored if r.get("kind") == kind]
        out[label] = sum(ok(s) for s in of_kind) / len(of_kind) if of_kind else None
    clean = [g.red_flag for r, g in scored if not r["red_flag"]]
    flawed = [g.red_flag for r, g in scored if r["red_flag"]]
    out["sure red flag on clean answers"] = sum(clean) / len(clean) if clean else None
    out["sure red flag on answers with the listed mistake"] = sum(flawed) / len(flawed) if flawed else None
    kinds = sorted({r.get("kind") for r in rows if r.get("kind")})
    for kind in kinds:
        pairs = [(r["score"], g.score) for r, g in scored if r.get("kind") == kind]
        if pairs:
            out[f"{kind}: mean gold -> mean grade"] = (f"{np.mean([a for a, _ in pairs]):.2f} -> "
                                                     f"{np.mean([b for _, b in pairs]):.2f} (n {len(pairs)})")
    return out


def kind_table(columns: dict[str, dict]) -> str:
    keys = list(dict.fromkeys(k for c in columns.values() for k in c))
    head = "| | " + " | ".join(columns) + " |"
    rule = "|---|" + "---|" * len(columns)
    return "\n".join([head, rule, *[f"| {k} | " + " | ".join(_fmt(c.get(k)) for c in columns.values()) + " |"
                                    for k in keys]])


def _fmt(value) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.3f}" if abs(value) < 10 else f"{value:.0f}"
    if isinstance(value, dict):
        return ", ".join(f"{k} {v}" for k, v in sorted(value.items())) or "-"
    return str(value)


def markdown_table(columns: dict[str, dict], *, kind: str) -> str:
    metrics = GRADE_METRICS if kind == "grades" else VERDICT_METRICS
    head = "| metric | " + " | ".join(columns) + " |"
    rule = "|---|" + "---|" * len(columns)
    body = [f"| {label} | " + " | ".join(_fmt(c.get(key)) for c in columns.values()) + " |" for key, label in metrics]
    return "\n".join([head, rule, *body])
