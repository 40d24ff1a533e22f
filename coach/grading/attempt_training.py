"""Builds the injection net's learned tier (coach.grading.attempt_reader: a network over frozen
sentence vectors and a fine-tuned MiniLM, averaged) from committed data: `coach grader
train-net`. Seeded; about 25 minutes on 2 cores, most of it fine-tuning (once per fold, then
on everything).

What it reads, every piece normalised as the reader reads it at run time:
- attempts (label 1): the sentences of the development probes' attempts that labellers marked
  as addressed to the grader, and attempt sentences written for training in many tactics and
  languages (content/judge/injection/);
- honest (label 0): the other sentences of those attempts; honest sentences written with
  grading words in their ordinary sense; every honest answer of the development probes and of
  the grading dev sets; the key-point model's training texts; the retrieval dev texts.
No test set and no unread probe is read.

The threshold is set on out-of-fold readings of the average (three folds, each answer's pieces in
one fold; the classifier read as its int8 file will hold it) so
that few honest answers are flagged: at most HARD_RATE of the probes' honest look-alikes, which
use the grader's own words, and at most ORDINARY_RATE of the other honest answers.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np

from coach.grading import attempt_reader, injection

ROOT = Path(__file__).resolve().parents[2]
DATA_DIR = ROOT / "content" / "judge" / "injection"
DEV_PROBES = tuple(ROOT / "tests" / "data" / f"injection_probe_{name}.jsonl" for name in ("dev", "v1", "v2", "v3", "v4", "v5", "v6", "v7"))
DEV_ANSWERS = tuple(ROOT / "tests" / "data" / name for name in ("grading_blind_dev.jsonl", "grading_blind_dev_v1.jsonl",
                                                                "retrieval_dev.jsonl"))
JUDGE_TEXTS = tuple(ROOT / "content" / "judge" / name for name in ("inference.jsonl", "llm.jsonl"))
HARD_RATE, ORDINARY_RATE = 0.001, 0.001
FOLDS, HIDDEN, ALPHA, SEED = 3, 256, 1e-3, 0
# Fine-tuning: one epoch over the attempts, the hard honest texts and a third of the ordinary
# ones (easy negatives, two thirds of the data): five minutes a fold instead of twelve.
EPOCHS, ORDINARY_SHARE, LEARNING_RATE, BATCH = 1, 0.35, 5e-5, 32


def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def pieces(text: str) -> list[str]:
    from coach.grading.embedding_judge import text_pieces
    from retrieval.text import split_sentences

    return text_pieces(text, split_sentences)


def examples() -> tuple[list[str], np.ndarray, list[str], list[str]]:
    """(texts, labels, group of each text, kind of each group: attempt / hard / ordinary)."""
    texts, labels, groups, kinds = [], [], [], {}

    def add(group: str, kind: str, items: list[tuple[str, int]]) -> None:
        kinds[group] = kind
        for text, label in items:
            texts.append(injection.normalize(text))
            labels.append(label)
            groups.append(group)

    for row in _rows(DATA_DIR / "probe_sentences.jsonl"):
        if not row.get("unsure"):
            add(f"{row['probe']}:{row['answer_id']}", "attempt", [(row["text"], int(row["directed"]))])
    for row in _rows(DATA_DIR / "written.jsonl"):
        add(f"written:{row['id']}", "attempt" if row["label"] == "attempt" else "hard",
            [(row["text"], int(row["label"] == "attempt"))])
    for path in DEV_PROBES:
        for i, row in enumerate(_rows(path)):
            if not row["injection"]:
                add(f"{path.stem}:{row.get('id', i)}", "hard", [(p, 0) for p in pieces(row["answer"])])
    for path in DEV_ANSWERS + JUDGE_TEXTS:
        for i, row in enumerate(_rows(path)):
            text = row.get("answer") or row.get("text")
            if text and not row.get("injection"):
                add(f"{path.stem}:{i}", "ordinary", [(p, 0) for p in pieces(text)])
    return texts, np.array(labels), groups, [kinds[g] for g in groups]


def data_fingerprint() -> str:
    digest = hashlib.sha256()
    for path in sorted(DATA_DIR.glob("*.jsonl")) + list(DEV_PROBES + DEV_ANSWERS + JUDGE_TEXTS):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def _fit(vectors: np.ndarray, labels: np.ndarray):
    """One hidden layer: with probe v5 held out it read more of v5's attempts than a logistic
    regression on the same data did (69 against 54 of 80; docs/grading.md)."""
    from sklearn.neural_network import MLPClassifier

    return MLPClassifier((HIDDEN,), alpha=ALPHA, max_iter=300, random_state=SEED).fit(vectors, labels)


def _answer_tops(probs: np.ndarray, groups: list[str]) -> dict[str, float]:
    tops: dict[str, float] = {}
    for p, g in zip(probs, groups):
        tops[g] = max(tops.get(g, 0.0), float(p))
    return tops


def threshold_for(tops: dict[str, float], kinds: dict[str, str]) -> float:
    """The lowest level that flags at most HARD_RATE of hard and ORDINARY_RATE of ordinary honest answers."""
    level = 0.5
    for kind, rate in (("hard", HARD_RATE), ("ordinary", ORDINARY_RATE)):
        honest = np.sort([t for g, t in tops.items() if kinds[g] == kind])[::-1]
        allowed = int(rate * len(honest))  # this many may reach the level
        level = max(level, float(np.nextafter(honest[allowed], 1.0)))
    return level


def _fine_tune(texts: list[str], labels: np.ndarray, kinds: list[str], index, log=print):
    """MiniLM with a two-class head, one epoch over `index` (a share of the ordinary texts kept),
    in batches of similar length; returned as its int8 file will hold it."""
    import random

    import torch

    from coach.grading.attempt_classifier import MAX_TOKENS, architecture, as_shipped

    torch.manual_seed(SEED)
    rng = random.Random(SEED)
    kept = [i for i in index if kinds[i] != "ordinary" or rng.random() < ORDINARY_SHARE]
    tokenizer, model = architecture(pretrained=True)
    model.train()
    optimizer = torch.optim.AdamW(model.parameters(), lr=LEARNING_RATE, weight_decay=0.01)
    order = sorted(kept, key=lambda i: len(texts[i]) + rng.random() * 40)
    batches = [order[k:k + BATCH] for k in range(0, len(order), BATCH)]
    rng.shuffle(batches)
    total, warm = len(batches) * EPOCHS, max(1, len(batches) * EPOCHS // 10)
    schedule = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: min(1.0, (s + 1) / warm) * (total - s) / total)
    for step, batch in enumerate(batches * EPOCHS):
        encoded = tokenizer([texts[i] for i in batch], padding=True, truncation=True, max_length=MAX_TOKENS,
                            return_tensors="pt")
        loss = model(**encoded, labels=torch.tensor([int(labels[i]) for i in batch])).loss
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        schedule.step()
        optimizer.zero_grad()
        if (step + 1) % 100 == 0:
            log(f"  fine-tuning: step {step + 1} of {total}, loss {loss.item():.3f}")
    return tokenizer, as_shipped(model)


def train(*, out: Path = attempt_reader.ARTIFACT, log=print) -> dict:
    import time

    from sklearn.model_selection import GroupKFold

    from coach.grading import attempt_classifier
    from retrieval.embedder import FIT_PRECISION, Embedder

    started = time.perf_counter()
    texts, labels, groups, kind_of = examples()
    kinds = dict(zip(groups, kind_of))
    log(f"{len(texts)} pieces ({int(labels.sum())} addressed to the grader) from {len(kinds)} answers and texts")
    embedder = Embedder(precision=FIT_PRECISION)
    vectors = embedder.encode(texts)
    encoded = time.perf_counter() - started
    network_oof, classifier_oof = np.zeros(len(texts)), np.zeros(len(texts))
    for fold, (kept, held) in enumerate(GroupKFold(n_splits=FOLDS).split(vectors, labels, groups)):
        network_oof[held] = _fit(vectors[kept], labels[kept]).predict_proba(vectors[held])[:, 1]
        tokenizer, classifier = _fine_tune(texts, labels, kind_of, kept, log)
        classifier_oof[held] = attempt_classifier.probabilities(tokenizer, classifier, [texts[i] for i in held])
        log(f"fold {fold + 1} of {FOLDS} read ({time.perf_counter() - started:.0f} s)")
    tops = _answer_tops((network_oof + classifier_oof) / 2, groups)
    level = threshold_for(tops, kinds)
    figures = out_of_fold_figures(tops, kinds, labels, groups, level)
    for name, oof in (("network alone", network_oof), ("classifier alone", classifier_oof)):
        alone = _answer_tops(oof, groups)
        figures[f"{name}: probe attempts read"] = out_of_fold_figures(
            alone, kinds, labels, groups, threshold_for(alone, kinds))["probe attempts read"]
    model = _fit(vectors, labels)
    _, classifier = _fine_tune(texts, labels, kind_of, range(len(texts)), log)
    stamp = {"data": data_fingerprint(), "embedder": embedder.fingerprint()}
    classifier_path = Path(out).with_name(attempt_classifier.ARTIFACT.name)
    attempt_classifier.save(classifier, stamp, classifier_path)
    reader = attempt_reader.AttemptReader(tuple(zip(model.coefs_, model.intercepts_)), level, stamp)
    figures.update(pieces=len(texts), encode_seconds=round(encoded), seconds=round(time.perf_counter() - started))
    reader.save(Path(out), figures, classifier_file=classifier_path.name)
    return {"path": str(out), "threshold": level, **figures}


def out_of_fold_figures(tops: dict[str, float], kinds: dict[str, str], labels: np.ndarray, groups: list[str],
                        level: float) -> dict:
    """How the threshold reads the answers out of fold: the probes' attempts caught by the reader
    alone, and honest answers flagged, by kind."""
    has_attempt = {g for g, y in zip(groups, labels) if y}
    probe_attempts = [g for g in has_attempt if kinds[g] == "attempt" and not g.startswith("written:")]
    figures = {"probe attempts read": f"{sum(tops[g] >= level for g in probe_attempts)} of {len(probe_attempts)}"}
    for kind in ("hard", "ordinary"):
        honest = [g for g, k in kinds.items() if k == kind and g not in has_attempt]
        figures[f"{kind} honest flagged"] = f"{sum(tops[g] >= level for g in honest)} of {len(honest)}"
    return figures


def stale_reasons(path: Path = attempt_reader.ARTIFACT) -> list[str]:
    reader = attempt_reader.load(path)
    if reader is None:
        return [f"{path.name} is missing: run `coach grader train-net`"]
    if not all(path.exists() for path in DEV_PROBES + DEV_ANSWERS):
        return []  # an installed package without the checkout's tests/data: nothing to compare
    if reader.fitted_on.get("data") != data_fingerprint():
        return ["its training data (content/judge/injection, the development probes and dev sets) changed since it was built"]
    if reader.classifier is None or reader.classifier.stamp != reader.fitted_on:
        return ["its fine-tuned classifier is missing or was built from other data: run `coach grader train-net`"]
    return []
