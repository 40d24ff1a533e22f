"""What can go wrong talking to the LLM. Callers catch `LLMError` and fall back."""

from __future__ import annotations


class LLMError(Exception):
    """Base class; `kind` names the failure for metrics and logs."""

    kind = "error"

    def __init__(self, message: str, *, kind: str | None = None):
        super().__init__(message)
        if kind is not None:
            self.kind = kind


class LLMUnavailable(LLMError):
    """Connection refused or dropped, server not ready, or the breaker is open: fail fast."""

    kind = "unavailable"


class LLMTimeout(LLMError):
    """The request took longer than the per-request timeout."""

    kind = "timeout"


class LLMServerError(LLMError):
    """The server kept answering 5xx after the retries."""

    kind = "server_error"


class LLMBadOutput(LLMError):
    """The reply is unusable: invalid JSON, JSON failing the schema, or cut off at max_tokens."""

    kind = "bad_output"


class LLMRequestRejected(LLMError):
    """The server refused the request itself (4xx, e.g. prompt longer than the context)."""

    kind = "rejected"
