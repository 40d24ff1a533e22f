"""Starting, readiness and stopping of the server process, with a stand-in for vLLM (the real
one is covered by the `vllm_server` fixture): the whole process group goes on stop and on
Ctrl-C, and a server that dies while starting is reported with its log."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from serving.local.server import LocalServerConfig, LocalVLLM, free_port, is_ready

FAKE = Path(__file__).with_name("fake_vllm_server.py")


class FakeVLLM(LocalVLLM):
    def __init__(self, config, tmp_path: Path, extra: list[str] = ()):
        super().__init__(Path(sys.executable), Path("/unused"), config, log_path=tmp_path / "server.log")
        self.pid_file = tmp_path / "pids"
        self.extra = list(extra)

    def command(self) -> list[str]:
        real = super().command()
        # Keep vLLM's own flags (the fake parses the ones it needs), swap the program.
        return [sys.executable, str(FAKE), *real[3:], "--pid-file", str(self.pid_file), *self.extra]


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is dead for our purposes.
    stat = Path(f"/proc/{pid}/stat")
    return stat.exists() and stat.read_text().split()[2] != "Z"


def wait_dead(pids, timeout=5.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and any(alive(p) for p in pids):
        time.sleep(0.05)
    return [p for p in pids if alive(p)]


def config(**overrides) -> LocalServerConfig:
    return LocalServerConfig(port=free_port(), startup_timeout_s=20, **overrides)


def test_start_waits_for_readiness_and_stop_ends_the_whole_group(tmp_path):
    server = FakeVLLM(config(), tmp_path)
    with server:
        assert is_ready(server.config.root_url, "grader")
        pids = [int(p) for p in server.pid_file.read_text().split()]
        assert all(alive(p) for p in pids)
    assert wait_dead(pids) == []
    assert not is_ready(server.config.root_url, "grader")


def test_server_dying_at_start_is_reported_with_its_log(tmp_path):
    server = FakeVLLM(config(), tmp_path, ["--exit-at-once", "3"])
    with pytest.raises(RuntimeError, match="exited with code 3") as caught:
        with server:
            pass
    assert "refusing to start" in str(caught.value)


def test_readiness_requires_the_served_name(tmp_path):
    server = FakeVLLM(config(served_name="other"), tmp_path)
    with server:
        assert is_ready(server.config.root_url, "other")
        assert not is_ready(server.config.root_url, "grader")


def test_command_and_environment_set_the_cpu_limits(tmp_path):
    server = LocalVLLM(Path("/venv/bin/python"), Path("/models/m"), config(threads=1, kv_cache_gib=3))
    command = server.command()
    flag = lambda name: command[command.index(name) + 1]  # noqa: E731
    assert command[1:3] == ["-m", "vllm.entrypoints.openai.api_server"]
    assert flag("--served-model-name") == "grader" and flag("--dtype") == "float32"
    assert "--enable-prefix-caching" in command
    assert int(flag("--max-model-len")) >= 2048
    env = server.environment()
    assert env["OMP_NUM_THREADS"] == "1"
    assert env["VLLM_CPU_OMP_THREADS_BIND"] == str(min(os.sched_getaffinity(0)))
    assert env["VLLM_CPU_KVCACHE_SPACE"] == "3"
    assert env["HF_HUB_OFFLINE"] == "1"


SERVE_SCRIPT = """
import sys
from pathlib import Path
from serving.local.server import LocalServerConfig, serve_foreground
sys.path.insert(0, {tests!r})
from test_local_process import FakeVLLM

def start(config, log):
    return FakeVLLM(config, Path({tmp!r})).__enter__()

sys.exit(serve_foreground(LocalServerConfig(port={port}, startup_timeout_s=20), log=lambda m: print(m, file=sys.stderr), start=start))
"""


def _ignoring_sigint() -> None:
    # What a shell does to a command it starts in the background (`cmd &`, no job control).
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@pytest.mark.parametrize(
    "signum, preexec",
    [(signal.SIGINT, None), (signal.SIGINT, _ignoring_sigint), (signal.SIGTERM, None)],
    ids=["ctrl-c", "ctrl-c-started-in-background", "sigterm"],
)
def test_serve_prints_the_base_url_and_a_stop_signal_stops_everything(tmp_path, signum, preexec):
    port = free_port()
    script = SERVE_SCRIPT.format(tests=str(Path(__file__).parent), tmp=str(tmp_path), port=port)
    repo = Path(__file__).resolve().parents[2]
    process = subprocess.Popen(
        [sys.executable, "-c", script], cwd=repo, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=preexec,
    )
    try:
        first_line = process.stdout.readline().strip()
        assert first_line == f"http://127.0.0.1:{port}/v1"
        pids = [int(p) for p in (tmp_path / "pids").read_text().split()]
        process.send_signal(signum)  # SIGINT is what Ctrl-C in the terminal delivers; SIGTERM is docker stop
        assert process.wait(timeout=20) == 0
    finally:
        process.kill()
    assert wait_dead(pids) == []
    assert "stopping vLLM" in process.stderr.read()


def test_coach_llm_serve_runs_the_launcher_with_host_and_port(monkeypatch):
    from bot.cli.main import main
    from serving.local import server as server_module

    seen = {}

    def fake_serve(config, *, log):
        seen["config"] = config
        log("progress goes to stderr")
        return 7

    monkeypatch.setattr(server_module, "serve_foreground", fake_serve)
    assert main(["llm", "serve", "--host", "127.0.0.2", "--port", "8123"]) == 7
    assert (seen["config"].host, seen["config"].port) == ("127.0.0.2", 8123)
    assert seen["config"].served_name == "grader"


def test_pinned_cores_hold_for_the_server_and_the_children_it_starts(tmp_path):
    core = max(os.sched_getaffinity(0))  # not necessarily the core the test runs on
    server = FakeVLLM(config(cpus=(core,)), tmp_path)
    with server:
        pids = [int(p) for p in server.pid_file.read_text().split()]
        assert [os.sched_getaffinity(pid) for pid in pids] == [{core}, {core}]
    assert server.environment()["VLLM_CPU_OMP_THREADS_BIND"] == str(core)
    assert server.environment()["OMP_NUM_THREADS"] == "1"


def test_dev_mode_is_off_unless_asked_for(monkeypatch):
    monkeypatch.delenv("VLLM_SERVER_DEV_MODE", raising=False)
    plain = LocalVLLM(Path("/venv/bin/python"), Path("/models/m"), config())
    dev = LocalVLLM(Path("/venv/bin/python"), Path("/models/m"), config(dev_mode=True))
    assert "VLLM_SERVER_DEV_MODE" not in plain.environment()
    assert dev.environment()["VLLM_SERVER_DEV_MODE"] == "1"


def test_scale_out_endpoints_only_when_asked_for():
    plain = LocalVLLM(Path("/venv/bin/python"), Path("/models/m"), config())
    routed = LocalVLLM(Path("/venv/bin/python"), Path("/models/m"), config(scale_out=True))
    assert "--enable-scale-out" not in plain.command() and "--enable-scale-out" in routed.command()
