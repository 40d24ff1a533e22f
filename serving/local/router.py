"""Start vllm-router (the Rust router from the `vllm-router` package, installed in the LLM
environment beside vLLM) in front of running vLLM replicas, and wait until it is ready.

The same program as the compose file's `router` service; here for the router benchmark
and the tests. The router forwards the OpenAI API to one replica per request, by policy:
`round_robin`, `cache_aware` (a prefix tree of the requests each replica was sent) or
`consistent_hash` (on the routing-key header the client sends, see `serving.client`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from serving.local.server import ManagedServer, free_port, is_ready

POLICIES = ("round_robin", "cache_aware", "consistent_hash")


@dataclass(frozen=True)
class RouterConfig:
    worker_urls: tuple[str, ...]  # replica roots, e.g. http://127.0.0.1:8001
    policy: str = "consistent_hash"
    host: str = "127.0.0.1"
    port: int = 30000
    served_name: str = "grader"  # ready when the replicas' /v1/models, seen through the router, lists it
    # The router's own Prometheus endpoint (default 29000 would clash between two routers).
    metrics_port: int = field(default_factory=free_port)
    startup_timeout_s: float = 120.0
    cpus: tuple[int, ...] | None = None
    extra_args: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not self.worker_urls:
            raise ValueError("the router needs at least one worker URL")

    @property
    def root_url(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def base_url(self) -> str:
        return self.root_url + "/v1"


class LocalRouter(ManagedServer):
    """vllm-router as a child process group; `python` is the LLM environment's interpreter."""

    name = "vllm-router"

    def __init__(self, python: Path, config: RouterConfig, *, log_path: Path | None = None):
        super().__init__(log_path=log_path)
        self.python = python
        self.config = config
        self.startup_timeout_s = config.startup_timeout_s
        self.cpus = config.cpus

    def command(self) -> list[str]:
        c = self.config
        return [
            str(self.python), "-m", "vllm_router.launch_router",
            "--host", c.host,
            "--port", str(c.port),
            "--policy", c.policy,
            "--worker-urls", *c.worker_urls,
            "--prometheus-host", "127.0.0.1",
            "--prometheus-port", str(c.metrics_port),
            # The replicas are up before the router starts here; check them every second, not 30.
            "--worker-startup-check-interval", "1",
            *c.extra_args,
        ]

    def ready(self) -> bool:
        return is_ready(self.config.root_url, self.config.served_name)
