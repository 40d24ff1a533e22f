"""Measure a grader against a labelled eval set (a JSON Lines file; the caller names it).

Metrics: quadratic weighted kappa, exact and within-1 agreement, red-flag
precision/recall, the share of answers without the mistake told they made it,
injection catch rate (no points: scored 0 and flagged, or turned away as off-topic),
mean score offset (leniency: positive = the grader scores higher than the label),
off-topic handling, latency percentiles.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from coach.grading.models import Grade, GradeResult, OffTopic

def load_eval_set(path: Path | str, split: str | None = None) -> list[dict]:
    """The rows of one eval file, each tagged with `split` (default: the file's stem)."""
    path = Path(path)
    with open(path, encoding="utf-8") as handle:
        return [dict(json.loads(line), split=split or path.stem) for line in handle if line.strip()]


def quadratic_weighted_kappa(a: list[int], b: list[int], n_levels: int = 5) -> float:
    """Cohen's kappa with quadratic weights over the 0..n_levels-1 scale."""
    if not a:
        return float("nan")
    observed = np.zeros((n_levels, n_levels))
    for x, y in zip(a, b):
        observed[x, y] += 1
    expected = np.outer(observed.sum(axis=1), observed.sum(axis=0)) / len(a)
    i, j = np.indices((n_levels, n_levels))
    weights = (i - j) ** 2 / (n_levels - 1) ** 2
    denominator = (weights * expected).sum()
    return 1.0 if denominator == 0 else float(1 - (weights * observed).sum() / denominator)


def _ratio(hits: int, total: int) -> float | None:
    return hits / total if total else None


@dataclass
class EvalReport:
    n: int = 0
    qwk: float | None = None
    exact: float | None = None
    within_1: float | None = None
    red_flag_precision: float | None = None
    red_flag_recall: float | None = None
    false_red_flags: float | None = None  # share of answers without the mistake given red_flag: true
    red_flag_possible_recall: float | None = None  # mistakes at least shown as "this may be"
    injection_catch_rate: float | None = None
    mean_offset: float | None = None
    off_topic_handled: float | None = None
    graders: dict[str, int] = field(default_factory=dict)
    latency_p50_ms: float | None = None
    latency_p95_ms: float | None = None

    def to_json(self) -> dict:
        return asdict(self)


def evaluate(rows: list[dict], results: list[GradeResult], latencies_ms: list[float] | None = None) -> EvalReport:
    """Compare graded `results` with the labels of `rows` (same order)."""
    gold, pred = [], []
    rf_tp = rf_fp = rf_fn = 0
    inj_total = inj_caught = 0
    clean_total = clean_flagged = flag_total = flag_noticed = 0
    off_total = off_ok = 0
    graders: dict[str, int] = {}
    for row, result in zip(rows, results):
        if row["bite_id"] is None:
            off_total += 1
            off_ok += isinstance(result, OffTopic)
            continue
        if row["injection"]:
            inj_total += 1
            inj_caught += isinstance(result, OffTopic) or (
                isinstance(result, Grade) and result.injection and result.score == 0)
        if not isinstance(result, Grade):
            pred_score, pred_rf = 0, False  # an ungraded on-topic answer counts as a miss
        else:
            pred_score, pred_rf = result.score, result.red_flag
            graders[result.grader] = graders.get(result.grader, 0) + 1
        gold.append(row["score"])
        pred.append(pred_score)
        rf_tp += row["red_flag"] and pred_rf
        rf_fp += (not row["red_flag"]) and pred_rf
        rf_fn += row["red_flag"] and not pred_rf
        possible = pred_rf or (isinstance(result, Grade) and result.red_flag_possible)
        if row["red_flag"]:
            flag_total += 1
            flag_noticed += possible
        else:
            clean_total += 1
            clean_flagged += pred_rf
    report = EvalReport(n=len(gold), graders=graders)
    if gold:
        g, p = np.array(gold), np.array(pred)
        report.qwk = round(quadratic_weighted_kappa(gold, pred), 4)
        report.exact = round(float((g == p).mean()), 4)
        report.within_1 = round(float((abs(g - p) <= 1).mean()), 4)
        report.mean_offset = round(float((p - g).mean()), 4)
    report.red_flag_precision = _ratio(rf_tp, rf_tp + rf_fp)
    report.red_flag_recall = _ratio(rf_tp, rf_tp + rf_fn)
    report.false_red_flags = _ratio(clean_flagged, clean_total)
    report.red_flag_possible_recall = _ratio(flag_noticed, flag_total)
    report.injection_catch_rate = _ratio(inj_caught, inj_total)
    report.off_topic_handled = _ratio(off_ok, off_total)
    if latencies_ms:
        report.latency_p50_ms = round(float(np.percentile(latencies_ms, 50)), 1)
        report.latency_p95_ms = round(float(np.percentile(latencies_ms, 95)), 1)
    return report


async def grade_rows(grader, rows: list[dict], *, concurrency: int = 16) -> tuple[list[GradeResult], list[float]]:
    """Grade every row (with its bite when it has one), concurrently so vLLM can batch."""
    slots = asyncio.Semaphore(concurrency)

    async def one(row):
        async with slots:
            outcome = await grader.grade_timed(row["answer"], row["bite_id"])
            return outcome.result, float(outcome.latency_ms)

    done = await asyncio.gather(*(one(row) for row in rows))
    return [r for r, _ in done], [ms for _, ms in done]


def disagreements(rows: list[dict], baseline: list[GradeResult], candidate: list[GradeResult]) -> list[dict]:
    """Rows where two graders give different scores (or one grades and the other does not)."""
    out = []
    for index, (row, a, b) in enumerate(zip(rows, baseline, candidate)):
        sa, sb = _score_of(a), _score_of(b)
        if sa != sb:
            out.append({
                "index": index, "split": row.get("split"), "bite_id": row.get("bite_id"), "kind": row.get("kind"),
                "label": row.get("score"), "baseline": sa, "candidate": sb, "answer": row["answer"][:160],
            })
    return out


def _score_of(result: GradeResult):
    if isinstance(result, Grade):
        return result.score
    if isinstance(result, OffTopic):
        return "off_topic"
    return "error"


def agreement(baseline: list[GradeResult], candidate: list[GradeResult]) -> dict:
    """QWK / exact / within-1 between two graders over the answers both graded."""
    pairs = [(a.score, b.score) for a, b in zip(baseline, candidate) if isinstance(a, Grade) and isinstance(b, Grade)]
    if not pairs:
        return {"n": 0, "qwk": None, "exact": None, "within_1": None}
    x, y = np.array([p[0] for p in pairs]), np.array([p[1] for p in pairs])
    return {
        "n": len(pairs),
        "qwk": round(quadratic_weighted_kappa(list(x), list(y)), 4),
        "exact": round(float((x == y).mean()), 4),
        "within_1": round(float((abs(x - y) <= 1).mean()), 4),
    }
