"""Configuration, logging hygiene, the health endpoint and the compose file."""

from __future__ import annotations

import io
import json
import logging
import shutil
import socket
import subprocess
from pathlib import Path

import aiohttp
import pytest
import yaml

from bot.observability import start_http
from coach.config import ConfigError, load_settings
from coach.logs import configure_logging
from coach.readiness import Readiness

ROOT = Path(__file__).resolve().parents[1]
TOKEN = "MTIzNDU2Nzg5MDEyMzQ1Njc4.GhIjKl.totally-secret-token-value"


@pytest.mark.parametrize(
    "variable, value, expected",
    [
        ("LLM_TIMEOUT_S", "soon", "LLM_TIMEOUT_S"),
        ("LLM_TIMEOUT_S", "-1", "greater than 0"),
        ("METRICS_PORT", "70000", "METRICS_PORT"),
        ("LOG_LEVEL", "LOUD", "LOG_LEVEL"),
        ("LLM_MAX_CONCURRENCY", "0", "LLM_MAX_CONCURRENCY"),
    ],
)
def test_a_bad_value_names_the_variable(monkeypatch, variable, value, expected):
    monkeypatch.setenv(variable, value)
    with pytest.raises(ConfigError) as error:
        load_settings()
    assert expected in str(error.value)
    assert variable in str(error.value)


def test_defaults_match_the_documented_ones(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)  # no .env here
    for name in ("DATABASE_URL", "DISCORD_TOKEN", "METRICS_PORT", "LLM_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    settings = load_settings()
    assert settings.database_url == "sqlite+aiosqlite:///var/coach.db"
    assert settings.discord_token is None
    assert settings.sqlite_path == Path("var/coach.db")


def test_env_file_is_read(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("LLM_MODEL", raising=False)
    (tmp_path / ".env").write_text("LLM_MODEL=judge-7b\n")
    assert load_settings().llm_model == "judge-7b"


def test_the_token_is_never_printed_or_logged(monkeypatch):
    monkeypatch.setenv("DISCORD_TOKEN", TOKEN)
    settings = load_settings(log_format="json")
    assert TOKEN not in repr(settings) and TOKEN not in str(settings.model_dump())
    stream = io.StringIO()
    configure_logging(settings, stream=stream)
    log = logging.getLogger("coach.test")
    log.info("connecting with %s", TOKEN)
    log.warning(f"token is {TOKEN}")
    log.error("gateway said", extra={"detail": f"Authorization: Bot {TOKEN}"})
    output = stream.getvalue()
    assert TOKEN not in output
    lines = [json.loads(line) for line in output.splitlines()]
    assert lines[0]["event"] == "connecting with ***"
    assert lines[2]["detail"] == "Authorization: Bot ***"


def test_a_bad_token_value_is_not_echoed_in_config_errors(monkeypatch):
    monkeypatch.setenv("DISCORD_DEV_GUILD_ID", "not-a-number")
    monkeypatch.setenv("DISCORD_TOKEN", TOKEN)
    with pytest.raises(ConfigError) as error:
        load_settings()
    assert TOKEN not in str(error.value)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def test_healthz_is_the_conjunction_of_critical_checks_and_reports_the_llm_apart():
    state = {"db": True, "llm": False}
    readiness = Readiness()

    async def database() -> bool:
        return state["db"]

    async def llm() -> bool:
        return state["llm"]

    readiness.register("database", database)
    readiness.register("llm", llm, critical=False)
    judge = {"state": "qualifying"}
    readiness.describe("llm_judge", lambda: dict(judge))
    port = free_port()
    runner = await start_http(readiness, "127.0.0.1", port)
    try:
        async with aiohttp.ClientSession() as http:
            async with http.get(f"http://127.0.0.1:{port}/healthz") as response:
                body = await response.json()
                assert response.status == 200
                assert body["degraded"] == ["llm"] and body["llm_judge"] == {"state": "qualifying"}
            judge.update(state="disqualified", reasons=["QWK 0.1 below the floor 0.7"])
            async with http.get(f"http://127.0.0.1:{port}/healthz") as response:
                body = await response.json()
                assert response.status == 200, "a disqualified LLM does not make the bot unready"
                assert body["llm_judge"]["state"] == "disqualified" and body["llm_judge"]["reasons"]
            state["db"] = False
            async with http.get(f"http://127.0.0.1:{port}/healthz") as response:
                assert response.status == 503
                assert (await response.json())["checks"]["database"] is False
            async with http.get(f"http://127.0.0.1:{port}/metrics") as response:
                assert response.status == 200
                assert "python_info" in await response.text()
    finally:
        await runner.cleanup()


def compose_validator() -> list[str] | None:
    """Debian's docker-compose, or the docker CLI's compose plugin, whichever is here."""
    if shutil.which("docker-compose"):
        return ["docker-compose"]
    if shutil.which("docker") and subprocess.run(["docker", "compose", "version"], capture_output=True).returncode == 0:
        return ["docker", "compose"]
    return None


def test_compose_file_passes_the_external_validator():
    """`.ci/run` installs the validator (it may install system packages; `make test` may not)."""
    validator = compose_validator()
    if validator is None:
        pytest.skip("no docker-compose here: .ci/run installs one; the structural checks below still run")
    result = subprocess.run(
        [*validator, "-f", str(ROOT / "docker-compose.yml"), "config", "-q"],
        capture_output=True, text=True, env={"DISCORD_TOKEN": "x", "PATH": "/usr/bin:/bin"}, timeout=60,
    )
    assert result.returncode == 0, result.stderr


def compose_services() -> dict:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]


def replica_names(services: dict) -> list[str]:
    return sorted(name for name in services if name.startswith("vllm-"))


def router_flag(command: list[str], name: str) -> list[str]:
    """The values of `--name=value` or `--name value...` in a router command line."""
    values = [arg.split("=", 1)[1] for arg in command if arg.startswith(f"--{name}=")]
    if f"--{name}" in command:
        for arg in command[command.index(f"--{name}") + 1 :]:
            if arg.startswith("--"):
                break
            values.append(arg)
    return values


def test_compose_file_has_the_production_shape():
    services = compose_services()
    replicas = replica_names(services)
    assert set(services) == {*replicas, "router", "postgres", "bot"}
    assert len(replicas) >= 2
    for name in replicas:
        replica = services[name]
        command = " ".join(replica["command"])
        for flag in ("--served-model-name=grader", "--enable-prefix-caching", "--max-num-seqs", "--max-model-len"):
            assert flag in command
        check = " ".join(replica["healthcheck"]["test"])
        assert "/health" in check and "/v1/models" in check and "grader" in check
        assert replica["healthcheck"]["start_period"]
    assert "pg_isready" in " ".join(services["postgres"]["healthcheck"]["test"])
    assert services["bot"]["build"] == "."
    assert services["bot"]["depends_on"] == {
        "postgres": {"condition": "service_healthy"}, "router": {"condition": "service_healthy"}}


def test_each_replica_has_its_own_gpu_and_the_router_lists_every_replica():
    services = compose_services()
    replicas = replica_names(services)
    gpus = []
    for name in replicas:
        (device,) = services[name]["deploy"]["resources"]["reservations"]["devices"]
        assert device["driver"] == "nvidia" and "gpu" in device["capabilities"]
        assert "count" not in device and len(device["device_ids"]) == 1  # one named GPU, not "any one"
        gpus += device["device_ids"]
    assert len(set(gpus)) == len(replicas)  # no two replicas on one GPU
    router = services["router"]
    command = router["command"]
    workers = router_flag(command, "worker-urls")
    assert sorted(workers) == [f"http://{name}:8000" for name in replicas]  # each replica's own URL, once
    # The measured choice (docs/bench/router.md, docs/scaling.md); the bot's bite-id header
    # makes consistent_hash a one-flag change.
    assert router_flag(command, "policy") == ["round_robin"]
    assert router["depends_on"] == {name: {"condition": "service_healthy"} for name in replicas}
    port = router_flag(command, "port")[0]
    assert services["bot"]["environment"]["LLM_BASE_URL"] == f"http://router:{port}/v1"
    check = " ".join(router["healthcheck"]["test"])
    assert "/health" in check and "/v1/models" in check and "grader" in check


def test_the_router_image_installs_the_version_the_benchmark_runs():
    from serving.local.venv import REQUIREMENTS

    (pin,) = [spec for spec in REQUIREMENTS if spec.startswith("vllm-router==")]
    build = compose_services()["router"]["build"]
    dockerfile = (ROOT / build["context"] / build["dockerfile"]).read_text()
    assert f"pip install -c /tmp/vllm-constraints.txt {pin}" in dockerfile
    assert "COPY local/vllm-constraints.txt" in dockerfile
    assert pin in (ROOT / "serving" / "local" / "vllm-constraints.txt").read_text().splitlines()
    assert "vllm-router" not in (ROOT / "pyproject.toml").read_text()  # serving-side, not the bot's


def test_dockerfile_is_slim_non_root_with_cpu_torch():
    text = (ROOT / "Dockerfile").read_text()
    assert "python:3.11-slim" in text
    assert "download.pytorch.org/whl/cpu" in text and "torch==2.13.0" in text
    assert "\nUSER " in text


def test_readme_documents_every_setting_and_both_commands():
    from coach.config import Settings

    readme = (ROOT / "README.md").read_text()
    assert "make run" in readme and "make test" in readme
    missing = [name.upper() for name in Settings.model_fields if f"`{name.upper()}`" not in readme]
    assert missing == []


def test_ci_runs_the_readme_test_command():
    assert "make test" in (ROOT / ".ci" / "run").read_text()
