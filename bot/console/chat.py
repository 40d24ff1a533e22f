"""`coach chat`: the Discord commands in a terminal, through the same handlers.

Commands are typed as on Discord with options written name:value
(`/quiz inference count:5`, `/bite kv cache`, `/explain`); a reply's buttons are
pressed by their letter (a-d), a word (`next`, `stop`) or their number. With stdin
not a terminal, commands are read line by line until the end of input. A picture
(`/stats`, `/stats view:map`) is saved under the data folder (`var/pictures/`) and its
path printed. `/explain kv cache audio:answer.ogg` answers with a recording: its transcript
is shown first (`grade` or `fix`), then graded. `/interview kv cache questions:1` runs a mock
interview: each answer is a line (or `audio:FILE`, a recording), `idk` passes a turn and `end`
shows the scorecard. The console is a server of one, whose owner is you: `/daily set` takes
channels by name (`channel:llm-room`) and stores their schedules; nothing is posted, and
`/daily preview channel:llm-room` shows that channel's post, whose buttons answer it.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import re
import shlex
import sys
import time
import uuid
import zlib
from datetime import datetime, timezone
from pathlib import Path

from bot.render import texts
from bot.command_table import BY_NAME, GROUPS, Command, Option, usage
from bot.handlers import Actor, Handlers
from bot.render.replies import Reply
from bot.handlers.voice import file_recording

# You own the console's one server, so its settings (`/daily`) are yours to change.
CONSOLE_USER = Actor(user_id=1, guild_id=1, name="you", can_manage_guild=True, request_id="")
WELCOME = "Interview Coach — console mode (no Discord needed). Type /help for commands, /quit to leave."
_REFUSED = object()  # an option value the console refused (and said why)
_BOLD = re.compile(r"\*\*(.+?)\*\*|\*(.+?)\*")
_CHANNEL = re.compile(r"<#(\d+)>")
_TIMESTAMP = re.compile(r"<t:(\d+)(?::\w)?>")


def console_channel_id(name: str) -> int:
    """A channel named in the console: the same id in every session, never 0 (no channel)."""
    return zlib.crc32(name.casefold().encode()) + 1


def readable(text: str, channels: dict[int, str]) -> str:
    """Discord's channel mentions and timestamps, as a terminal shows them."""
    text = _CHANNEL.sub(lambda m: "#" + channels.get(int(m.group(1)), f"channel-{m.group(1)}"), text)
    return _TIMESTAMP.sub(
        lambda m: f"{datetime.fromtimestamp(int(m.group(1)), timezone.utc):%Y-%m-%d %H:%M} UTC", text)


def plain(text: str) -> str:
    return _BOLD.sub(lambda m: m.group(1) or m.group(2), text or "")


def format_reply(reply: Reply) -> str:
    lines = []
    if reply.content:
        lines.append(plain(reply.content))
    if reply.embed:
        e = reply.embed
        if e.title:
            lines.append(f"== {plain(e.title)} ==")
        if e.description:
            lines.append(plain(e.description))
        for field in e.fields:
            lines.append(f"-- {plain(field.name)} --\n{plain(field.value)}")
        if e.footer:
            lines.append(f"({plain(e.footer)})")
    if reply.buttons:
        labels = "  ".join(f"[{i}] {b.label}" + (f" ({b.key})" if b.key and len(b.key) == 1 else "")
                           for i, b in enumerate(reply.buttons, start=1))
        lines.append(labels)
    return "\n".join(lines)


def parse_command(line: str) -> tuple[str, list[str], dict[str, str]]:
    """'/quiz inference count:5' -> ('quiz', ['inference'], {'count': '5'})."""
    try:
        words = shlex.split(line[1:])
    except ValueError:
        words = line[1:].split()
    if not words:
        return "", [], {}
    name, rest = words[0].lower(), words[1:]
    options = {}
    positional = []
    for word in rest:
        key, sep, value = word.partition(":")
        if sep and re.fullmatch(r"[a-z_]+", key):
            options[key] = value
        else:
            positional.append(word)
    return name, positional, options


def _flag(value: str | None) -> bool | None:
    if value is None:
        return None
    return value.strip().lower() in ("1", "true", "yes", "on")


def save_picture(attachment, folder: Path, turn: int = 0) -> Path:
    """Write a reply's picture under `folder` with a name of its own; returns the path."""
    folder.mkdir(parents=True, exist_ok=True)
    stem, dot, ext = attachment.filename.rpartition(".")
    path = folder / f"{stem or ext}-{time.strftime('%Y%m%d-%H%M%S')}-{turn}{dot}{ext if stem else 'png'}"
    path.write_bytes(attachment.data)
    return path


def shown_path(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


class Console:
    def __init__(self, handlers: Handlers, stdin=None, stdout=None, actor: Actor = CONSOLE_USER):
        self.handlers = handlers
        self.pictures_dir = Path(handlers.services.settings.data_dir) / "pictures"
        self.stdin = stdin or sys.stdin
        self.stdout = stdout or sys.stdout
        self.actor = actor
        self.interactive = self.stdin.isatty()
        self.buttons = ()
        # Request ids must be unique across processes (attempt keys are): a second console
        # session on the same database starts its turns at 1 again.
        self._session = uuid.uuid4().hex[:12]
        self._turn = 0
        self.channels: dict[int, str] = {}  # the channels named in this session, by id
        self.channel_id = 0  # where you are: a previewed daily post's channel, so its buttons answer it

    def say(self, text: str) -> None:
        self.stdout.write(text + "\n")
        self.stdout.flush()

    async def read(self, prompt: str = "> ") -> str | None:
        if self.interactive:
            self.stdout.write(prompt)
            self.stdout.flush()
        line = await asyncio.to_thread(self.stdin.readline)
        return None if line == "" else line.rstrip("\n")

    def _actor(self) -> Actor:
        self._turn += 1
        return dataclasses.replace(self.actor, request_id=f"console-{self._session}-{self._turn}",
                                   front_end="console", channel_id=self.channel_id)

    async def show(self, reply: Reply) -> None:
        """Print a reply; a modal becomes a prompt for the answer."""
        if reply.modal is not None:
            modal = reply.modal
            self.say(f"{plain(modal.title)} — {modal.inputs[0].placeholder or modal.inputs[0].label}")
            if modal.inputs[0].value:  # a pre-filled box (the transcript to fix): show what is in it
                self.say(f"Now: {modal.inputs[0].value}\nType it as it should read.")
            text = await self.read("your answer> ")
            if text is None or not text.strip():
                self.say("(nothing typed — cancelled)")
                return
            # A word a button of the reply answers (`idk`, `end` in an interview) presses it.
            word = next((b for b in self.buttons if b.key and len(b.key) > 1 and b.key != "answer"
                         and b.key == text.strip().lower()), None)
            if word is not None:
                await self.show(await self.handlers.press(self._actor(), word.custom_id))
                return
            if text.strip().lower().startswith("audio:") and modal.custom_id.startswith("im:"):  # an interview turn, said
                recording = self._value(Option("audio", kind="audio"), text.strip()[len("audio:"):].strip())
                if recording is not _REFUSED:
                    await self.show(await self.handlers.voice.interview_audio(self._actor(), recording))
                return
            if any(i.custom_id in ("answer", "transcript") for i in modal.inputs):
                self.say("(grading…)")
            values = {modal.inputs[0].custom_id: text}
            await self.show(await self.handlers.submit(self._actor(), modal.custom_id, values))
            return
        self.say(readable(format_reply(reply), self.channels))
        if reply.attachment is not None:
            path = save_picture(reply.attachment, self.pictures_dir, self._turn)
            self.say(f"Picture: {shown_path(path)}")
        self.buttons = reply.buttons
        answer = next((b for b in reply.buttons if b.key == "answer"), None)
        if answer is not None:  # /explain <topic>: go straight to the answer box
            await self.show(await self.handlers.press(self._actor(), answer.custom_id))

    def _button_for(self, word: str):
        word = word.strip().lower()
        if word.isdigit() and 1 <= int(word) <= len(self.buttons):
            return self.buttons[int(word) - 1]
        return next((b for b in self.buttons if b.key == word), None)

    async def command(self, line: str) -> bool:
        """Handle one line; False means quit."""
        line = line.strip()
        if not line:
            return True
        if line in ("/quit", "/exit", "quit", "exit"):
            return False
        if not line.startswith("/"):
            button = self._button_for(line)
            if button is None:
                self.say("Type a command such as /quiz, or a button: a–d, next, or its number. /help lists them.")
                return True
            await self.show(await self.handlers.press(self._actor(), button.custom_id))
            return True
        name, words, given = parse_command(line)
        if name in GROUPS and words and f"{name} {words[0].lower()}" in BY_NAME:  # `/daily set ...`
            name, words = f"{name} {words[0].lower()}", words[1:]
        command = BY_NAME.get(name)
        if command is None and name in GROUPS:
            subcommands = ", ".join(f"/{c}" for c in BY_NAME if c.startswith(name + " "))
            self.say(texts.GROUP_NEEDS_SUBCOMMAND.format(name=name, subcommands=subcommands))
            return True
        if command is None or not command.console:
            self.say((texts.UNKNOWN_COMMAND if command is None else texts.NO_CONSOLE_VERSION).format(name=name))
            return True
        options = self._options(command, words, given)
        if options is None:
            return True
        reply = await self.handlers.command(command, self._actor(), options)
        if command.name == "daily preview" and reply.outcome == "preview" and options["channel"]:
            self.channel_id = options["channel"]  # you now look at that channel: its post's buttons answer it
        await self.show(reply)
        return True

    def _options(self, command: Command, words: list[str], given: dict[str, str]) -> dict | None:
        """The command's options from name:value words and loose words (None: one was refused,
        and the console said why)."""
        loose = iter(words)
        options = {}
        for option in command.options:
            if option.rest:
                value = " ".join(words) or given.get(option.name)
            else:
                value = given.get(option.name) or (next(loose, None) if option.positional else None)
            options[option.name] = option.default if value is None else self._value(option, value)
            if options[option.name] is _REFUSED:
                return None
            if option.required and options[option.name] is None:
                self.say(texts.missing_option(command.name, option.name, usage(command, console=True)))
                return None
        return options

    def _value(self, option: Option, text: str):
        if option.kind == "flag":
            return _flag(text)
        if option.kind == "channel":  # `channel:llm-room` or `channel:#llm-room`
            name = text.strip().lstrip("#").strip()
            if not name:
                return None
            channel_id = console_channel_id(name)
            self.channels[channel_id] = name
            return channel_id
        if option.kind == "number":
            try:
                return int(text)
            except ValueError:
                self.say(texts.not_a_number(option.name, *(option.bounds or (0, 0))))
                return _REFUSED
        if option.kind == "audio":  # /explain kv cache audio:answer.ogg
            recording = file_recording(text)
            if recording is None:
                self.say(texts.NO_SUCH_FILE.format(path=text))
                return _REFUSED
            self.say("(transcribing…)")
            return recording
        return text

    async def run(self) -> int:
        self.say(WELCOME)
        await self.show(await self.handlers.help(self._actor()))
        while True:
            line = await self.read()
            if line is None:
                return 0
            try:
                if not await self.command(line):
                    self.say("Bye — good luck with the interview!")
                    return 0
            except Exception:
                logging.getLogger("coach.bot.console").exception("command failed")
                self.say(texts.SORRY)


async def run_console(settings, stdin=None, stdout=None) -> int:
    from bot.services import build_services

    services = await build_services(settings)
    services.pictures.start()  # warms up while the user types
    try:
        return await Console(Handlers(services), stdin, stdout).run()
    finally:
        await services.close()


def chat_command(args) -> int:
    from bot.process import prepare

    settings = prepare(console=True)
    return asyncio.run(run_console(settings))
