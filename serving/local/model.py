"""The served model: SmolLM2-135M-Instruct, converted once from the packaged GGUF."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

CONVERTED_NAME = "smollm2-135m-instruct-f32"
CONVERT_SCRIPT = Path(__file__).with_name("convert_gguf.py")


def is_converted(model_dir: Path) -> bool:
    # The converter renames a finished folder into place, so these files mean it completed.
    return (model_dir / "config.json").is_file() and (model_dir / "model.safetensors").is_file()


def ensure_converted_model(
    llm_python: Path, models_dir: Path, *, log: Callable[[str], None] = print
) -> Path:
    """Return the safetensors folder, converting the GGUF first if it is not cached yet."""
    model_dir = (models_dir / CONVERTED_NAME).resolve()
    if is_converted(model_dir):
        return model_dir
    models_dir.mkdir(parents=True, exist_ok=True)
    log(f"converting the packaged GGUF to safetensors in {model_dir} (once)")
    result = subprocess.run(
        [str(llm_python), str(CONVERT_SCRIPT), str(model_dir)], capture_output=True, text=True
    )
    if result.returncode != 0 or not is_converted(model_dir):
        tail = "\n".join(result.stderr.strip().splitlines()[-15:])
        raise RuntimeError(f"model conversion failed (exit {result.returncode}):\n{tail}")
    return model_dir
