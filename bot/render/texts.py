"""What the bot says in short notices, each said once and named for when it is said.

The renderer (bot/render/messages.py) builds the larger replies; handlers pick one of these.
"""

from __future__ import annotations

SORRY = "Something went wrong on my side — your progress is safe. Please try again."
BUTTON_GONE = "That button is no longer valid."
FORM_GONE = "That form is no longer valid."
NOT_AVAILABLE = "That isn't available to you."
BITE_GONE = "I don't know that bite any more."
ITEM_GONE = "I don't know that item any more."
QUIZ_GONE = "I can't find that quiz any more. Start a new one with `/quiz`."
QUIZ_NOT_YOURS = "That quiz isn't yours, or it is gone. Start your own with `/quiz`."
NO_BITE_FOUND = "I couldn't find a bite on that. Try other words, or `/bite` for today's."
TODAYS_BITE = "Today's bite"
NO_BITE_TO_GRADE = "I couldn't find a bite on that. Try `/explain` with no topic and just answer."
GRADING_UNAVAILABLE = "Grading is unavailable right now, sorry — your answer was not stored. Try again later."
NO_ATTACHING = "I may not attach files here (an admin can grant *Attach Files*)."
LEADERBOARD_NEEDS_SERVER = "The leaderboard is per server; use it in a server."
CONFIRMATION_GONE = "That confirmation isn't yours or has expired. Run `/forget` again."
FORGOTTEN = "Done: everything I stored about you is deleted."
REPORT_EMPTY = "Please say what is wrong, so a maintainer can fix it."
REPORTED = "Thanks — your report is stored and a maintainer will look at it."
DAILY_NEEDS_SERVER = "Daily posts are set per server; run this in a server."
DAILY_ADMINS_ONLY = "Only members with the **Manage Server** permission can change daily posts."
DAILY_WAS_OFF = "Daily posts were not on."


def daily_off(channel_id: int | None, stopped: int) -> str:
    if channel_id is not None:
        return f"Daily posts in <#{channel_id}> are off."
    return "Daily posts are off." if stopped == 1 else f"Daily posts are off in all {stopped} channels."
def no_daily_in(channel_id: int) -> str:
    return f"<#{channel_id}> has no daily post. `/daily set channel:` starts one."
DAILY_ANSWERED_IN_SERVER = "Daily questions are answered in their server."
PREVIEW = "Preview (only you see this). {schedule}"
NO_CONSOLE_VERSION = "/{name} posts in a Discord server channel; it has no console version."
def missing_option(command: str, option: str, usage: str) -> str:
    return f"/{command} needs {option}: — `{usage}`."
GROUP_NEEDS_SUBCOMMAND = "/{name} needs one of: {subcommands}."
UNKNOWN_COMMAND = "Unknown command /{name}. /help lists the commands."
NO_SUCH_FILE = "There is no file {path!r}."


def invalid(error: Exception) -> str:
    """A domain error's message as one sentence: every refused request reads the same way."""
    text = str(error).strip()
    return text if text.endswith((".", "!", "?")) else f"{text}."


def unknown_track(track: str, tracks) -> str:
    return f"There is no track called {track!r}. Tracks: {', '.join(tracks)}."


def not_a_choice(option: str, choices) -> str:
    return f"{option} must be one of: {', '.join(choices)}."


def not_a_number(option: str, low: int, high: int) -> str:
    return f"{option} must be a number from {low} to {high}."


GRADING_BUSY = ("Lots of answers are being graded right now, so I couldn't take yours — it was not stored. "
                "Please send it again in a minute.")


def interview_cooldown(limit: int, window_s: int, retry_after_s: float) -> str:
    minutes = int(retry_after_s // 60) + 1
    return (f"An interview grades up to a dozen answers, so I keep it to {limit} interviews every "
            f"{window_s // 60 or 1} minutes. The next one can start in about {minutes} minute{'s' if minutes != 1 else ''}; "
            "`/explain` and `/quiz` work meanwhile.")


def cooldown(limit: int, window_s: int, retry_after_s: float) -> str:
    return (f"Grading takes a while, so I keep it to {limit} explanations every {window_s // 60 or 1} minutes. "
            f"Take a breath and try again in {int(retry_after_s) + 1} seconds.")
