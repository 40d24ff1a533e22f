"""`coach grader fit`: fit every number the graders learn from data, into one artifact
(coach/grading/grader_fit.json) stamped with what it was fitted on."""

from __future__ import annotations

import json
from pathlib import Path

DEFAULT_DEV = Path("tests/data/grading_blind_dev.jsonl")


def embedder_name(embedder) -> str:
    return Path(embedder.model_path).parent.name


def fit_grader(catalog, embedder, dev_path: Path):
    """Fit on `dev_path` (never on test) and return the artifact, not yet saved."""
    from coach.grading import calibration
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
    return build_fit(catalog, dev_path, embedder_name(embedder), thresholds, rule, figures)


def fit_command(args) -> int:
    from coach.config import load_settings
    from coach.grading.fit import ARTIFACT, save_fit
    from content import default_catalog
    from retrieval import Embedder

    settings = load_settings()
    fit = fit_grader(default_catalog(), Embedder(settings.embedding_model_path), Path(args.dev))
    out = Path(args.out) if args.out else ARTIFACT
    save_fit(fit, out)
    if args.json:
        print(json.dumps(fit.model_dump(), ensure_ascii=False))
    else:
        print(f"wrote {out} (fit {fit.version}) from {args.dev}")
        print(f"score rule: {fit.score}\nembedding thresholds: {fit.embedding}")
        for name, figures in fit.figures.items():
            print(f"{name}: {figures}")
    return 0
