"""LLM serving: the shared async client for vLLM, its errors, the prompt layout and the
local CPU server launcher (`serving.local`). Knows nothing of bites or Discord."""

from serving.client import LLMClient
from serving.errors import (
    LLMBadOutput,
    LLMError,
    LLMRequestRejected,
    LLMServerError,
    LLMTimeout,
    LLMUnavailable,
)
from serving.prompt import PromptLayout

__all__ = [
    "LLMBadOutput",
    "LLMClient",
    "LLMError",
    "LLMRequestRejected",
    "LLMServerError",
    "LLMTimeout",
    "LLMUnavailable",
    "PromptLayout",
]
