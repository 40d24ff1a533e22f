"""Every slash command, once: its name, description, options and handler. The Discord
registration (bot/discord/commands.py), the console's dispatch (bot/console/chat.py) and the help text
(bot/render/messages.py) are derived from this table, and each choice list is defined here once."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Awaitable, Callable, Literal, Mapping

from bot.protocols import Actor, Hub
from bot.render.replies import Reply
from coach.progress.service import PERIODS as PERIOD_WINDOWS


PERIODS = tuple(PERIOD_WINDOWS)  # week, month, all: the coach's leaderboard windows
STATS_VIEWS = ("progress", "map")
# Where weeks start in most places (CLDR): the weekly picture comes with that day's post.
WEEK_STARTS = ("monday", "sunday", "saturday")

Kind = Literal["text", "number", "flag", "channel", "audio"]
Options = Mapping[str, Any]


@dataclass(frozen=True)
class Option:
    name: str
    description: str = ""  # "" leaves Discord's placeholder
    kind: Kind = "text"
    required: bool = False
    default: Any = None
    choices: tuple[str, ...] = ()
    titled: bool = False  # choices read as names on Discord (`Monday` for monday)
    tracks: bool = False  # the catalog's tracks are the choices
    bounds: tuple[int, int] | None = None  # a number's range, or a text's length
    positional: bool = False  # the console also takes it by position (`/stats map`)
    rest: bool = False  # the console joins every loose word into it (`/bite kv cache`)


def never(options: Options) -> bool:
    return False


@dataclass(frozen=True)
class Command:
    name: str  # "daily set" is the subcommand "set" of the group "daily"
    description: str
    run: Callable[[Hub, Actor, Options], Awaitable[Reply]]
    help: str  # its line in /help, after the usage
    options: tuple[Option, ...] = ()
    public: bool = False  # the reply is shown to the channel
    console: bool = True  # the console offers it too
    slow: Callable[[Options], bool] = never  # acknowledge first: it takes seconds
    instant: Callable[[Options], bool] = never  # the reply may be a modal: never acknowledge first
    console_help: str = ""  # its /help line in the console, where it differs


@dataclass(frozen=True)
class Group:
    description: str
    admin: bool = False  # only for members who may manage the server


GROUPS = {"daily": Group("The server's daily bite and question (admins)", admin=True)}
ANY_TRACK = "any"  # /settings track:any forgets the member's preferred track
TOPIC = Option("topic", "A few words about the topic (optional)", bounds=(1, 200), rest=True)


def _explain(h: Hub, actor: Actor, o: Options) -> Awaitable[Reply]:
    if o["audio"] is not None:
        return h.voice.explain_audio(actor, o["topic"], o["audio"])
    return h.explain(actor, o["topic"])


COMMANDS: tuple[Command, ...] = (
    Command("quiz", "Multiple-choice questions with explanations",
            lambda h, a, o: h.quiz(a, o["track"], o["count"]),
            "multiple-choice questions with explanations; with no track, your preferred one (`/settings`), "
            "else the server's daily track, else a mix of every track.",
            (Option("track", "Which track (default: yours, else the server's, else a mix)", tracks=True,
                    positional=True),
             Option("count", "How many questions (5-30)", "number", default=10, bounds=(5, 30)))),
    Command("bite", "A 60-second explainer: on a topic, or today's",
            lambda h, a, o: h.bite(a, o["topic"]), "a 60-second explainer on a topic, or today's.", (TOPIC,)),
    Command("explain", "Explain a concept out loud and get it graded", _explain,
            "explain a concept out loud and get it graded; with no topic, just answer. "
            "Add `audio:` with a recording, or send me a voice message afterwards.",
            (Option("topic", "The concept (optional: with none, just answer and I find the topic)", bounds=(1, 200),
                    rest=True),
             Option("audio", "A recording of your answer (a voice memo or audio file, up to 3 minutes)", "audio")),
            slow=lambda o: o["audio"] is not None,  # transcribing takes seconds
            instant=lambda o: o["audio"] is None and not o["topic"],  # the answer box
            console_help="explain a concept out loud and get it graded; with no topic, just answer. "
                         "Add `audio:FILE` to answer with a recording."),
    Command("interview", "A mock interview: answer, then the interviewer's follow-ups, then a scorecard",
            lambda h, a, o: h.interview(a, o["topic"], o["track"], o["questions"]),
            "a mock interview: answer a question, then the follow-ups on what you missed; a scorecard at the end.",
            (Option("topic", "The first question's topic (optional: with none, your weakest bites)", bounds=(1, 200),
                    rest=True),
             Option("track", "Which track", tracks=True),
             Option("questions", "How many questions (1-3)", "number", default=2, bounds=(1, 3))),
            console_help="a mock interview: `/interview kv cache questions:1`; answer lines, `idk` passes, "
                         "`end` shows the scorecard."),
    Command("review", "Go through your due review cards", lambda h, a, o: h.review(a), "your due review cards."),
    Command("stats", "Your progress as a picture; view:map shows every bite by mastery",
            lambda h, a, o: h.stats(a, o["view"], o["track"]),
            "your progress as a picture; `/stats view:map` the bite map.",
            (Option("view", "progress (the default) or map: every bite of a track as a tile coloured by mastery",
                    default="progress", choices=STATS_VIEWS, positional=True),
             Option("track", "Which track's bite map", tracks=True, positional=True))),
    Command("leaderboard", "Who earned the most XP here", lambda h, a, o: h.leaderboard(a, o["period"]),
            "who earned the most XP here.", (Option("period", default="week", choices=PERIODS, positional=True),),
            public=True),
    Command("settings", "Timezone, answer keeping, leaderboard, reminders, your track",
            lambda h, a, o: h.settings(a, **o),
            "timezone, answer keeping, leaderboard, reminders, and the track `/quiz` uses when you name none "
            f"(`{ANY_TRACK}`: the server's, else a mix).",
            (Option("timezone", "IANA name, e.g. Europe/Paris", bounds=(1, 64)),
             Option("track", f"The track /quiz uses when you name none ({ANY_TRACK}: the server's, else a mix)",
                    tracks=True, choices=(ANY_TRACK,)),
             Option("keep_answers", "Keep the texts of my answers", "flag"),
             Option("leaderboard", "Show me on the leaderboard", "flag"),
             Option("reminders", "DM me when reviews are due", "flag"))),
    Command("forget", "Delete all your data (asks to confirm)", lambda h, a, o: h.forget(a), "deletes your data."),
    Command("help", "What the coach can do", lambda h, a, o: h.help(a), "this list."),
    Command("daily set", "Post a daily bite and question in a channel (one schedule per channel)",
            lambda h, a, o: h.daily_set(a, o["channel"], o["time"], o["timezone"], o["track"], o["week_starts"]),
            "(admins) posts a daily bite and question in a channel; each channel can have its own time and track.",
            (Option("channel", "Where to post", "channel", required=True),
             Option("time", "Local time, HH:MM (24-hour)", required=True, bounds=(1, 5)),
             Option("timezone", "IANA name, e.g. Europe/Berlin", required=True, bounds=(1, 64)),
             Option("track", "Which track", tracks=True),
             Option("week_starts", "Day the server's week starts; that day's post shows the last week "
                                   "(default: by language)", choices=WEEK_STARTS, titled=True)),
            console_help="(admins) a daily post per channel, each with its own time and track: "
                         "`/daily set channel:llm-room time:09:00 timezone:UTC track:llm`. The console posts "
                         "nothing; `/daily preview channel:llm-room` shows the post."),
    Command("daily off", "Stop the daily posts (in one channel, or all)",
            lambda h, a, o: h.daily_off(a, o["channel"]),
            "(admins) stops them in a channel, or with no channel everywhere.",
            (Option("channel", "Which channel's posts (default: every channel)", "channel"),)),
    Command("daily preview", "See today's post (only you)", lambda h, a, o: h.daily_preview(a, o["channel"]),
            "(admins) shows today's post to you only: this channel's, or the channel you name.",
            (Option("channel", "Whose post (default: this channel's, else the main one)", "channel"),)),
)
BY_NAME = {command.name: command for command in COMMANDS}


def usage(command: Command, *, console: bool = False) -> str:
    """`/quiz track: count:` on Discord; `/quiz [track] count:<5-30>` in the console."""
    words = [f"/{command.name}"]
    for option in command.options:
        if option.choices and not option.tracks:
            words.append(f"{option.name}:{'|'.join(option.choices)}")
        elif console and (option.positional or option.rest):
            words.append(f"[{option.name}]")
        elif console and option.kind == "number" and option.bounds:
            words.append(f"{option.name}:<{option.bounds[0]}-{option.bounds[1]}>")
        else:
            words.append(f"{option.name}:")
    return " ".join(words)


def help_lines(*, console: bool = False) -> list[str]:
    return [f"`{usage(c, console=console)}` {(console and c.console_help) or c.help}" for c in COMMANDS]
