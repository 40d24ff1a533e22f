"""`coach chat` driven through its input stream (a subprocess with stdin) and once
through a pseudo-terminal, on a fresh var/ and with no network."""

import os
import pty
import select
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bot.console.chat import format_reply, parse_command
from bot.render import messages as render

REPO = Path(__file__).parents[2]
TRACKS = REPO / "tests" / "e2e" / "tracks"
COACH = [str(REPO / ".venv" / "bin" / "coach"), "chat"]


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def env(tmp_path):
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "DATABASE_", "LLM_"))}
    clean.update(CONTENT_DIR=str(TRACKS), LLM_BASE_URL=f"http://127.0.0.1:{closed_port()}/v1", LLM_TIMEOUT_S="2",
                 HF_HUB_OFFLINE="1", PYTHONPATH=str(REPO))
    return clean


def chat(lines: list[str], cwd: Path, env: dict) -> subprocess.CompletedProcess:
    """One `coach chat` session fed these lines on stdin."""
    return subprocess.run(COACH, input="\n".join(lines) + "\n", capture_output=True, text=True, cwd=cwd, env=env,
                          timeout=500)


def test_parse_command_reads_discord_style_options():
    assert parse_command("/quiz inference count:5") == ("quiz", ["inference"], {"count": "5"})
    assert parse_command("/bite kv cache") == ("bite", ["kv", "cache"], {})
    assert parse_command("/settings timezone:Europe/Paris reminders:true") == (
        "settings", [], {"timezone": "Europe/Paris", "reminders": "true"})


def test_format_reply_lists_buttons_with_their_shortcuts():
    text = format_reply(render.help_text({}, console=True))
    assert "**" not in text and "/quit" in text


# Generous limits: each test starts a fresh process, slow on a machine busy with other work.
@pytest.mark.timeout(600)
def test_piped_session_on_a_fresh_var(tmp_path, env):
    script = "\n".join([
        "/quiz inference count:5", "a", "next", "b", "next", "stop",
        "/bite kv cache",
        "/explain kv cache",
        "The KV cache keeps the keys and values of earlier tokens in every layer so each step only computes the "
        "newest token, and the memory grows with sequence length and batch size.",
        "/stats", "/stats view:map", "/nonsense", "/quit", "/help",  # nothing after /quit runs
    ]) + "\n"
    done = subprocess.run(COACH, input=script, capture_output=True, text=True, cwd=tmp_path, env=env, timeout=500)
    out = done.stdout
    assert done.returncode == 0, done.stderr
    assert out.startswith("Interview Coach — console mode")
    assert (tmp_path / "var" / "coach.db").exists(), "made its own database under var/"
    assert "Quiz · 1/5" in out and "Quiz · 2/5" in out and "Why:" in out
    assert "Quiz stopped" in out
    assert "== The KV cache ==" in out
    assert "Score " in out and "fallback embedding grader" in out
    assert "Your progress" in out and "Unknown command /nonsense" in out
    # The pictures are saved under var/ and their paths printed.
    pictures = [line.removeprefix("Picture: ") for line in out.splitlines() if line.startswith("Picture: ")]
    assert [Path(p).name.split("-2")[0] for p in pictures] == ["progress", "bite-map"]
    for path in pictures:
        assert path.startswith("var/pictures/") and (tmp_path / path).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "== Bite map · Inference (test track) ==" in out and "Next:" in out
    assert out.rstrip().endswith("Bye — good luck with the interview!")
    assert "Traceback" not in done.stderr
    # The LLM was unreachable: the warning went to the log file, not into the conversation.
    assert "does not answer" not in out and "does not answer" not in done.stderr
    assert "the LLM server does not answer" in (tmp_path / "var" / "console.log").read_text()


@pytest.mark.timeout(900)
def test_a_second_console_session_on_the_same_database_keeps_its_answers(tmp_path, env):
    """Request ids are unique across processes: a new session's first /explain is not taken
    for a retry of the previous session's first one."""
    script = "\n".join([
        "/explain kv cache",
        "The KV cache keeps the keys and values of earlier tokens so each step only projects the newest token.",
        "/stats", "/quit",
    ]) + "\n"
    outputs = [subprocess.run(COACH, input=script, capture_output=True, text=True, cwd=tmp_path, env=env,
                              timeout=500).stdout for _ in range(2)]
    explained = [out.count("(embedding) ·") for out in outputs]
    assert explained == [1, 2], outputs[1]


@pytest.mark.timeout(600)
def test_end_of_input_exits_cleanly(tmp_path, env):
    done = subprocess.run(COACH, input="/help\n", capture_output=True, text=True, cwd=tmp_path, env=env, timeout=500)
    assert done.returncode == 0 and "/quit" in done.stdout


class Screen:
    """What the child printed on the terminal, consumed up to each expected text, so
    output that arrives together with an earlier expectation is not waited for again."""

    def __init__(self, fd: int):
        self.fd, self.pending = fd, ""

    def expect(self, needle: str, timeout: float = 120) -> str:
        deadline = time.monotonic() + timeout
        while needle not in self.pending:
            if time.monotonic() > deadline:
                raise AssertionError(f"never saw {needle!r}; got:\n{self.pending[-2000:]}")
            ready, _, _ = select.select([self.fd], [], [], 0.5)
            if ready:
                try:
                    self.pending += os.read(self.fd, 65536).decode(errors="replace")
                except OSError:
                    break
        cut = self.pending.index(needle) + len(needle)
        seen, self.pending = self.pending[:cut], self.pending[cut:]
        return seen


@pytest.mark.timeout(600)
def test_interactive_terminal(tmp_path, env):
    master, slave = pty.openpty()
    # Its own session: never a background job of whatever terminal pytest runs under
    # (which would stop it with SIGTTIN/SIGTTOU before it prints anything).
    proc = subprocess.Popen(COACH, stdin=slave, stdout=slave, stderr=slave, cwd=tmp_path, env=env, close_fds=True,
                            start_new_session=True)
    os.close(slave)
    try:
        screen = Screen(master)
        screen.expect("> ")  # a prompt is shown on a terminal
        os.write(master, b"/quiz inference count:5\n")
        screen.expect("Quiz · 1/5")
        assert "[1] A (a)" in screen.expect("> ")
        os.write(master, b"c\n")
        screen.expect("Next")
        os.write(master, b"/quit\n")
        screen.expect("Bye")
        assert proc.wait(timeout=30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(master)


@pytest.mark.timeout(600)
def test_console_interview_rescues_a_missed_point(tmp_path, env):
    """#28's console session: a weak first answer, the follow-up on a missed core point, a good
    answer to it marked rescued, then `end` and the scorecard with its signal."""
    done = chat([
        "/interview kv cache questions:1",
        "um it caches some stuff from earlier tokens so generation is faster",
        "The cache stores the attention keys and values of earlier tokens for every layer.",
        "end",
        "/quit",
    ], tmp_path, env)
    out = done.stdout
    assert done.returncode == 0, done.stderr[-2000:]
    assert "== Interview — question 1 of 1 ==" in out
    assert "Noted: that missed." in out and "== Interview — follow-up (question 1 of 1) ==" in out
    assert "Noted: that landed." in out
    card = out[out.index("== Interview scorecard — "):]
    assert card.splitlines()[0].removeprefix("== Interview scorecard — ").removesuffix(" ==") in (
        "Strong yes", "Lean yes", "Lean no", "Strong no")
    assert "Rescued on follow-up:\n• The cache stores the attention keys and values" in card
    assert "You ended the interview." in card


@pytest.fixture
def two_tracks(tmp_path, env):
    """The e2e Inference track beside two bites of the LLM track."""
    import shutil

    root = tmp_path / "tracks"
    shutil.copytree(TRACKS / "inference", root / "inference")
    shutil.copytree(TRACKS.parent / "tracks_llm" / "llm", root / "llm")
    return {**env, "CONTENT_DIR": str(root)}


@pytest.mark.timeout(600)
def test_console_session_across_two_tracks_with_a_daily_post_per_channel(tmp_path, two_tracks):
    """Issue #29's console session: a daily schedule in two channels with two tracks, the LLM
    channel's post previewed and answered, `/quiz llm`, `/explain lora`, the LLM bite map."""
    work = tmp_path / "work"
    work.mkdir()
    done = chat([
        "/daily set channel:serving-room time:09:00 timezone:UTC track:inference",
        "/daily set channel:#llm-room time:18:30 timezone:Europe/Berlin track:llm",
        "/daily preview channel:llm-room", "a",
        "/daily preview channel:nowhere",
        "/daily preview",
        "/quiz llm count:5", "a", "next", "stop",
        "/explain lora",
        "LoRA freezes the pretrained weights and learns the update as two thin low-rank matrices, so only a few "
        "parameters and their optimizer state are trained, and the product can be merged into the weights after.",
        "/stats view:map track:llm",
        "/daily off channel:serving-room",
        "/quit",
    ], work, two_tracks)
    out = done.stdout
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert "Daily posts: #serving-room at 09:00 UTC, track inference." in out
    assert "Daily posts: #llm-room at 18:30 Europe/Berlin, track llm." in out
    assert " UTC." in out.split("track llm.")[1].split("\n")[0], "the next post's time, readable"
    preview = out.split("Preview (only you see this). Daily posts: #llm-room")[1]
    assert preview.split("\n== ")[1].startswith(("Daily bite · LoRA", "Daily bite · Supervised")), "its own track"
    assert "Right!" in preview or "Not quite" in preview, "its button answered that channel's post"
    assert "#nowhere has no daily post." in out
    quiz = out.split("Quiz · 1/5")[1].split("Quiz stopped")[0]
    assert "LoRA" in quiz or "fine-tun" in quiz or "chat template" in quiz
    assert "== Bite map · LLM Fundamentals & Training ==" in out
    assert "Score " in out and "fallback embedding grader" in out, "the answer about LoRA was graded"
    assert "Daily posts in #serving-room are off." in out
    # `/daily preview` with no channel shows where you look (llm-room), not the main schedule's channel
    # (serving-room has the lower id); a failed preview moved you nowhere.
    assert out.count("Preview (only you see this). Daily posts: #llm-room") == 2
