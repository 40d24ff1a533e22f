"""Start the local vLLM OpenAI-compatible server on the CPU and wait until it is ready.

One code path for `coach llm serve`, the test-session fixture and the benchmark:
`prepare()` makes the environment and the model, `LocalVLLM` runs the process.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from serving.local.model import ensure_converted_model
from serving.local.venv import ensure_llm_venv

REPO_ROOT = Path(__file__).resolve().parents[2]


def _usable_cpus() -> list[int]:
    return sorted(os.sched_getaffinity(0))


@dataclass(frozen=True)
class LocalServerConfig:
    host: str = "127.0.0.1"
    port: int = 8000
    served_name: str = "grader"
    # Grading prompts are ~1-1.5k tokens; 2048 leaves room for the output cap.
    max_model_len: int = 2048
    # Enough concurrent sequences for continuous batching to pay off on two cores.
    max_num_seqs: int = 16
    # OpenMP compute threads, pinned to the first cores we may use. The API front end
    # (tokenizing, HTTP) and whatever else runs here share the same cores.
    threads: int = field(default_factory=lambda: len(_usable_cpus()))
    # KV cache: the 135M model needs ~46 KB per token in float32, so 2 GiB holds ~45k
    # tokens, i.e. every sequence at full length plus room for cached prefixes.
    kv_cache_gib: int = 2
    # Skip torch.compile. On this CPU build inductor is off, so compiling only traces the
    # graph: it took 90-130 s at every start (the AOT cache fails to reload: "'function'
    # object has no attribute 'finalize_loading'") and gave no measurable speed-up
    # (docs/bench/serving.md). Eager starts the engine in ~7 s.
    enforce_eager: bool = True
    startup_timeout_s: float = 900.0  # the first start compiles kernels for minutes
    # Pin the whole server (API front end, engine, OpenMP threads) to these cores with taskset,
    # e.g. one core per replica in the router benchmark; None: not pinned, and the OpenMP
    # threads bind to the first `threads` usable cores.
    cpus: tuple[int, ...] | None = None
    # vLLM's development endpoints (POST /reset_prefix_cache, which benchmarks use to start
    # every case from an empty cache). Never for a server anyone else can reach.
    dev_mode: bool = False
    # vLLM's scale-out endpoints (/v1/chat/completions/render and friends): vllm-router's
    # cache-aware policy renders each prompt to tokens through them to match prefixes; without
    # them it cannot match and falls back to load alone.
    scale_out: bool = False

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}/v1"

    @property
    def root_url(self) -> str:
        return f"http://{self.host}:{self.port}"


def prepare(
    *, venv_dir: Path | None = None, models_dir: Path | None = None, log: Callable[[str], None] = print
) -> tuple[Path, Path]:
    """Make the LLM environment and the converted model if missing; return (python, model dir)."""
    python = ensure_llm_venv(venv_dir or REPO_ROOT / ".venv-vllm", log=log)
    model_dir = ensure_converted_model(python, models_dir or REPO_ROOT / "var" / "models", log=log)
    return python, model_dir


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as sock:
        sock.bind((host, 0))
        return sock.getsockname()[1]


def is_ready(root_url: str, served_name: str, *, timeout_s: float = 2.0) -> bool:
    """Ready means `/health` is 200 and the served name is listed in `/v1/models`."""
    try:
        with httpx.Client(base_url=root_url, timeout=timeout_s) as http:
            if http.get("/health").status_code != 200:
                return False
            models = http.get("/v1/models")
            return models.status_code == 200 and any(
                item.get("id") == served_name for item in models.json().get("data", [])
            )
    except (httpx.HTTPError, ValueError):
        return False


class ManagedServer:
    """A server process (and whatever children it starts) in its own process group: started,
    waited on until ready, stopped as a whole. Subclasses say what to run and when it is ready."""

    name = "server"
    startup_timeout_s = 60.0
    cpus: tuple[int, ...] | None = None  # taskset the whole group to these cores

    def __init__(self, *, log_path: Path | None = None):
        self.log_path = log_path
        self.process: subprocess.Popen | None = None
        self._log_file = None

    def command(self) -> list[str]:
        raise NotImplementedError

    def environment(self) -> dict[str, str]:
        return dict(os.environ)

    def ready(self) -> bool:
        raise NotImplementedError

    def start(self) -> None:
        # Without a log file, the server's output goes to our stderr: stdout is the caller's.
        output = 2
        if self.log_path is not None:
            self.log_path.parent.mkdir(parents=True, exist_ok=True)
            self._log_file = open(self.log_path, "ab")  # noqa: SIM115 - closed in stop()
            output = self._log_file
        argv = self.command()
        if self.cpus:
            # Set before the program starts, so every thread and child it makes inherits it.
            argv = ["taskset", "--cpu-list", ",".join(str(cpu) for cpu in self.cpus), *argv]
        self.process = subprocess.Popen(
            argv,
            env=self.environment(),
            stdout=output,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,  # own process group: one signal stops the children too
        )

    def wait_ready(self) -> None:
        deadline = time.monotonic() + self.startup_timeout_s
        while time.monotonic() < deadline:
            if self.process is not None and self.process.poll() is not None:
                raise RuntimeError(
                    f"{self.name} exited with code {self.process.returncode} while starting{self._log_tail()}"
                )
            if self.ready():
                return
            time.sleep(0.5)
        raise TimeoutError(f"{self.name} not ready after {self.startup_timeout_s:.0f} s{self._log_tail()}")

    def stop(self, grace_s: float = 20.0) -> None:
        process, self.process = self.process, None
        if process is not None and process.poll() is None:
            try:
                os.killpg(process.pid, signal.SIGTERM)
                process.wait(timeout=grace_s)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
            except ProcessLookupError:
                pass
        if process is not None:
            # Children may outlive the parent; the group id is the parent's pid.
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        if self._log_file is not None:
            self._log_file.close()
            self._log_file = None

    def _log_tail(self, lines: int = 25) -> str:
        if self.log_path is None or not self.log_path.exists():
            return ""
        tail = self.log_path.read_text(errors="replace").splitlines()[-lines:]
        return f"\n--- {self.name} log ({self.log_path}) ---\n" + "\n".join(tail)

    def __enter__(self):
        self.start()
        try:
            self.wait_ready()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


class LocalVLLM(ManagedServer):
    """One vLLM server process (and its engine children) in its own process group."""

    name = "vLLM"

    def __init__(self, python: Path, model_dir: Path, config: LocalServerConfig, *, log_path: Path | None = None):
        super().__init__(log_path=log_path)
        self.python = python
        self.model_dir = model_dir
        self.config = config
        self.startup_timeout_s = config.startup_timeout_s
        self.cpus = config.cpus

    def ready(self) -> bool:
        return is_ready(self.config.root_url, self.config.served_name)

    def command(self) -> list[str]:
        c = self.config
        return [
            str(self.python), "-m", "vllm.entrypoints.openai.api_server",
            "--model", str(self.model_dir),
            "--served-model-name", c.served_name,
            "--host", c.host,
            "--port", str(c.port),
            "--dtype", "float32",  # AVX2 but no native bf16 here: bf16 matmuls are emulated
            "--enable-prefix-caching",
            "--max-model-len", str(c.max_model_len),
            "--max-num-seqs", str(c.max_num_seqs),
            # Compact JSON: a small model otherwise pads structured output with newlines,
            # spending the output budget on whitespace.
            "--structured-outputs-config", '{"backend": "xgrammar", "disable_any_whitespace": true}',
            "--disable-uvicorn-access-log",
            *(["--enforce-eager"] if c.enforce_eager else []),
            *(["--enable-scale-out"] if c.scale_out else []),
        ]

    def environment(self) -> dict[str, str]:
        cpus = list(self.config.cpus or _usable_cpus()[: max(1, self.config.threads)])
        env = dict(os.environ)
        env.update(
            OMP_NUM_THREADS=str(len(cpus)),
            # An explicit core list; "auto" would reserve a whole core for the scheduler.
            VLLM_CPU_OMP_THREADS_BIND=",".join(str(cpu) for cpu in cpus),
            VLLM_CPU_KVCACHE_SPACE=str(self.config.kv_cache_gib),
            HF_HUB_OFFLINE="1",
            TRANSFORMERS_OFFLINE="1",
            VLLM_NO_USAGE_STATS="1",
            DO_NOT_TRACK="1",
        )
        if self.config.dev_mode:
            env["VLLM_SERVER_DEV_MODE"] = "1"
        # The bot's environment must not leak into the LLM one.
        env.pop("VIRTUAL_ENV", None)
        env.pop("PYTHONPATH", None)
        return env

def start_local_server(config: LocalServerConfig, *, log_path: Path | None = None, log=print) -> LocalVLLM:
    """Prepare everything, start the server and return it once ready (the caller stops it)."""
    python, model_dir = prepare(log=log)
    server = LocalVLLM(python, model_dir, config, log_path=log_path)
    return server.__enter__()


def _interrupt(signum, frame) -> None:
    raise KeyboardInterrupt


def serve_foreground(config: LocalServerConfig, *, log=print, start=start_local_server) -> int:
    """`coach llm serve`: run until Ctrl-C or SIGTERM (or until vLLM exits), then stop the whole group.

    Progress goes to `log`; the base URL alone goes to stdout, for scripts to read."""
    # vLLM runs in its own session, so it outlives us unless we stop it: SIGTERM (docker stop,
    # systemd) must take the same path as Ctrl-C, and a shell that started us in the
    # background with SIGINT ignored must not make Ctrl-C a no-op.
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, _interrupt)
    server = start(config, log=log)
    try:
        log(f"vLLM ready, serving {config.served_name!r}; Ctrl-C stops it")
        print(config.base_url, flush=True)
        return server.process.wait() if server.process else 1
    except KeyboardInterrupt:
        log("stopping vLLM")
        return 0
    finally:
        server.stop()
