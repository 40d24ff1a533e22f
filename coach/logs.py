"""Logging: one structured line per event; JSON when stderr is not a terminal.

Secrets never reach a handler: a filter masks the Discord token wherever it appears.
"""

from __future__ import annotations

import json
import logging
import sys
from datetime import datetime, timezone

_STANDARD = set(vars(logging.LogRecord("", 0, "", 0, "", (), None))) | {"message", "asctime"}


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        payload = {
            "ts": datetime.fromtimestamp(record.created, tz=timezone.utc).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "event": record.getMessage(),
        }
        payload.update({k: v for k, v in vars(record).items() if k not in _STANDARD and not k.startswith("_")})
        if record.exc_info:
            payload["exc"] = self.formatException(record.exc_info)
        return json.dumps(payload, default=str, ensure_ascii=False)


class ConsoleFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        extras = " ".join(f"{k}={v}" for k, v in vars(record).items() if k not in _STANDARD and not k.startswith("_"))
        line = f"{record.levelname[0]} {record.name}: {record.getMessage()}" + (f"  {extras}" if extras else "")
        if record.exc_info:
            line += "\n" + self.formatException(record.exc_info)
        return line


class SecretFilter(logging.Filter):
    """Replace secret values in the message, its arguments and its extra fields."""

    def __init__(self, secrets: list[str]):
        super().__init__()
        self.secrets = [s for s in secrets if s and len(s) >= 6]

    def _mask(self, value):
        if isinstance(value, str):
            for secret in self.secrets:
                value = value.replace(secret, "***")
        return value

    def filter(self, record: logging.LogRecord) -> bool:
        if self.secrets:
            record.msg = self._mask(str(record.msg))
            if record.args:
                args = record.args if isinstance(record.args, tuple) else (record.args,)
                record.args = tuple(self._mask(a if isinstance(a, (int, float)) else str(a)) for a in args)
            for key, value in list(vars(record).items()):
                if key not in _STANDARD:
                    setattr(record, key, self._mask(value))
        return True


def configure_logging(settings, stream=None, path=None) -> None:
    """Log to `stream` (default stderr), or append JSON lines to the file at `path`."""
    if path is not None:
        handler = logging.FileHandler(path, encoding="utf-8")
        use_json = settings.log_format != "console"
    else:
        stream = stream or sys.stderr
        use_json = settings.log_format == "json" or (settings.log_format == "auto" and not stream.isatty())
        handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonFormatter() if use_json else ConsoleFormatter())
    token = settings.discord_token.get_secret_value() if settings.discord_token else ""
    handler.addFilter(SecretFilter([token]))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(settings.log_level)
    # These libraries are chatty at INFO; keep their warnings. (The bot quiets discord.py itself.)
    for noisy in ("httpx", "httpcore", "aiosqlite", "sentence_transformers", "faiss"):
        logging.getLogger(noisy).setLevel(max(logging.WARNING, root.level))
