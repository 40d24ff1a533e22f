"""The prompt layout every caller uses, so vLLM's automatic prefix caching can reuse blocks.

The static prefix (system prompt + rubric instructions) comes first and must be
byte-identical across requests: anything that varies per request (ids, timestamps, a
random fence around the answer) belongs in the context or the user part, never here.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PromptLayout:
    static_prefix: str

    def __post_init__(self) -> None:
        if not self.static_prefix.strip():
            raise ValueError("the static prefix must not be empty")

    def prefix_messages(self) -> list[dict]:
        """The shared part alone, e.g. to count its tokens."""
        return [{"role": "system", "content": self.static_prefix}]

    def messages(self, context: str, user: str) -> list[dict]:
        """System = the static prefix; then the per-item context; the user content last.

        Context and user content share one user turn: some chat templates reject two user
        turns in a row, and the order within the turn is what the cache cares about.
        """
        return [
            *self.prefix_messages(),
            {"role": "user", "content": f"{context}\n\n{user}"},
        ]
