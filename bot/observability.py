"""The bot's HTTP side door: `/healthz` (readiness JSON; 503 when not ready) and `/metrics`."""

from __future__ import annotations

import logging

from aiohttp import web
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from coach.readiness import Readiness

log = logging.getLogger(__name__)


def build_app(readiness: Readiness) -> web.Application:
    async def healthz(_request: web.Request) -> web.Response:
        report = await readiness.report()
        return web.json_response(report, status=200 if report["ready"] else 503)

    async def metrics(_request: web.Request) -> web.Response:
        return web.Response(body=generate_latest(), headers={"Content-Type": CONTENT_TYPE_LATEST})

    app = web.Application()
    app.router.add_get("/healthz", healthz)
    app.router.add_get("/metrics", metrics)
    return app


async def start_http(readiness: Readiness, host: str, port: int) -> web.AppRunner | None:
    """Start the endpoint; port 0 disables it. Returns the runner to clean up."""
    if not port:
        return None
    runner = web.AppRunner(build_app(readiness), access_log=None)
    await runner.setup()
    try:
        await web.TCPSite(runner, host, port).start()
    except OSError as error:  # the bot still serves users without its metrics port
        log.warning("metrics endpoint not started", extra={"port": port, "error": str(error)})
        await runner.cleanup()
        return None
    log.info("metrics endpoint up", extra={"url": f"http://{host}:{port}"})
    return runner
