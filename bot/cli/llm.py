"""`coach llm serve`: the local vLLM server in the foreground (Ctrl-C stops it)."""

from __future__ import annotations

import sys


def serve_command(args) -> int:
    from serving.local.server import LocalServerConfig, serve_foreground

    def log(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    return serve_foreground(LocalServerConfig(host=args.host, port=args.port), log=log)
