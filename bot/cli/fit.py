"""`coach grader fit`: fit every number the graders learn from data, into one artifact
(coach/grading/grader_fit.json) stamped with what it was fitted on."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from coach.grading.point_model import ARTIFACT as POINT_MODEL
from retrieval.embedder import FIT_PRECISION

DEFAULT_DEV = Path("tests/data/grading_blind_dev.jsonl")
# Interview follow-up sets 1 and 2, each read once as a held-out set and then retired to dev.
_DATA = Path(__file__).resolve().parents[2] / "tests" / "data"
FOLLOWUP_DEV = (_DATA / "interview_followups_dev.jsonl", _DATA / "interview_followups_dev_v2.jsonl")


def embedder_name(embedder) -> str:
    return Path(embedder.model_path).parent.name


def fit_grader(catalog, embedder, dev_path: Path, followup_dev: tuple[Path, ...] = FOLLOWUP_DEV):
    """Fit on `dev_path` (never on test) and return the artifact, not yet saved."""
    from coach.grading import calibration, point_calibration
    from coach.grading.embedding_judge import EmbeddingJudge, EmbeddingThresholds, idf_corpus
    from coach.grading.eval import load_eval_set
    from coach.grading.fit import build_fit
    from retrieval.text import split_sentences

    rows = load_eval_set(dev_path)
    rule, ceiling = calibration.fit_score_rule(rows, catalog)
    judge = EmbeddingJudge(embedder, split_sentences, EmbeddingThresholds(1, 1, 1, 1, 1), idf_corpus(catalog))
    dev = calibration.features(judge, catalog, rows)
    thresholds = calibration.fit_thresholds(dev, rule)
    figures = {
        "rubric_ceiling": ceiling,
        "embedding_on_dev": calibration.summary(dev, thresholds, rule),
        "embedding_bite_held_out": calibration.cross_validate(dev, rule),
    }
    point = combined = followup = None
    if POINT_MODEL.exists():
        signals, point = fit_point_judge(catalog, embedder, rows, rule)
        figures["trained_on_dev"] = point_calibration.summary(signals, point, rule)
        figures["trained_bite_held_out"] = point_calibration.cross_validate(signals, rule)
        combined, figures["combined_on_dev"], figures["combined_bite_held_out"] = fit_combined(
            dev, thresholds, signals, point, rule)
        followup, figures["followup_on_dev"], figures["followup_bite_held_out"] = fit_followup(catalog, followup_dev)
    return build_fit(catalog, dev_path, embedder_name(embedder), thresholds, rule, figures, point=point,
                     combined=combined, followup=followup, followup_dev=followup_dev)


def fit_followup(catalog, dev_paths: tuple[Path, ...]):
    """The follow-up reader's thresholds on the follow-up dev sets, with its agreement there
    in-sample and with whole bites held out (5 folds)."""
    from coach.grading import followup_reader
    from coach.grading.point_model import PointModel
    from retrieval.text import split_sentences

    rows = [json.loads(line) for path in dev_paths for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip()]
    reader = followup_reader.FollowUpReader(PointModel(POINT_MODEL, precision=FIT_PRECISION), split_sentences, None)
    readings = [reader.reading(catalog.bites[r["bite_id"]], r["point"], r["answer"]) for r in rows]
    gold = [r["status"] for r in rows]
    thresholds = followup_reader.fit(readings, gold)
    return (thresholds, followup_reader.agreement(readings, gold, thresholds),
            followup_reader.cross_validate(readings, gold, [r["bite_id"] for r in rows]))


def fit_point_judge(catalog, embedder, rows: list[dict], rule):
    """The trained model's readings of dev, and the trained judge's thresholds fitted on them."""
    from coach.grading import point_calibration
    from coach.grading.point_judge import PointJudge
    from coach.grading.point_model import PointModel
    from retrieval.text import split_sentences

    judge = PointJudge(PointModel(POINT_MODEL, precision=FIT_PRECISION), split_sentences, thresholds=None,
                       embedder=embedder)
    signals = point_calibration.dev_signals(judge, catalog, rows)
    return signals, point_calibration.fit(signals, rule)


def fit_combined(features, thresholds, signals, point, rule):
    """The combined judge's cut-off on dev, with what it gives there and with bites held out."""
    from coach.grading import combined_judge
    from coach.grading.calibration import score_key

    inputs = combined_judge.dev_inputs(features, thresholds, signals, point, rule)
    level = combined_judge.fit_short_words(inputs, features.gold, score_key)
    return ({"short_words": level}, figures_of(combined_judge.predict(**inputs, short_words=level), features.gold),
            figures_of(combined_judge.cross_validate(inputs, features.gold, features.bites, score_key), features.gold))


def figures_of(pred, gold) -> dict:
    from coach.grading.eval import quadratic_weighted_kappa

    return {"n": int(len(gold)), "qwk": round(quadratic_weighted_kappa(list(gold), list(pred)), 4),
            "exact": round(float((pred == gold).mean()), 4), "mean_offset": round(float((pred - gold).mean()), 3)}


def fit_command(args) -> int:
    from coach.config import load_settings
    from coach.grading.fit import ARTIFACT, save_fit
    from content import default_catalog
    from retrieval import Embedder

    settings = load_settings()
    fit = fit_grader(default_catalog(), Embedder(settings.embedding_model_path, precision=FIT_PRECISION), Path(args.dev))
    out = Path(args.out) if args.out else ARTIFACT
    save_fit(fit, out)
    if args.json:
        print(json.dumps(fit.model_dump(), ensure_ascii=False))
    else:
        print(f"wrote {out} (fit {fit.version}) from {args.dev}")
        print(f"score rule: {fit.score}\nembedding thresholds: {fit.embedding}\ntrained judge thresholds: {fit.point}\n"
              f"combined judge: {fit.combined}\nfollow-up reader: {fit.followup}")
        for name, figures in fit.figures.items():
            print(f"{name}: {figures}")
    return 0


def train_command(args) -> int:
    """`coach grader train`: the key-point model from the committed data, seeded."""
    from coach.grading import point_training
    from content import default_catalog

    options = {k: v for k, v in (("seed", args.seed), ("epochs", args.epochs)) if v is not None}
    if args.out:
        options["out"] = Path(args.out)
    done = point_training.train(default_catalog(), **options, log=lambda line: print(line, file=sys.stderr))
    print(json.dumps(done) if args.json else f"wrote {done['path']} ({done['bytes'] / 1e6:.1f} MB) from "
          f"{done['pairs']} pairs in {done['train_seconds']} s (seed {done['seed']}, {done['epochs']} epochs)")
    return 0


def train_net_command(args) -> int:
    """`coach grader train-net`: the injection net's learned tier (coach.grading.attempt_reader)."""
    from coach.grading import attempt_training

    options = {"out": Path(args.out)} if args.out else {}
    done = attempt_training.train(**options, log=lambda line: print(line, file=sys.stderr))
    print(json.dumps(done) if args.json else "\n".join(f"{k}: {v}" for k, v in done.items()))
    return 0
