"""The compact codec for state carried in Discord `custom_id`s (at most 100 chars).

An id names an action and the object it acts on, never the actor: the user is always
the interaction's user, and ownership is checked against the store by the handler.
Decoding is tolerant: anything that is not exactly one of these shapes gives None.

    q:<session>:<position>:<choice>   answer a quiz question (choice 0-3)
    n:<session>:<position>            next question / finish
    s:<session>                       stop the quiz
    b:<bite>                          read the bite
    z:<bite>                          quiz me on this bite
    x:<bite>                          explain it out loud (opens the answer modal)
    g:<bite>:<draft>                  re-grade the held answer against another bite
    r:<kind>:<item>                   report a question (kind q) or bite (kind b)
    d:<yyyymmdd>:<choice>             answer the daily question of that local date (in this guild)
    f:<nonce>                         confirm /forget
    m:<bite|->                        the answer modal (- = find the bite by retrieval)
    rm:<kind>:<item>                  the report modal
    vg:<token>:<bite|->               grade a held voice transcript (- = its own bite, or find one)
    vf:<token>                        fix a held voice transcript (opens its modal)
    vm:<token>                        the fix-the-transcript modal
    ia:<interview>:<turn>             answer the interview's turn (opens its modal)
    ip:<interview>:<turn>             "I don't know": pass the turn
    ie:<interview>                    end the interview (its scorecard)
    im:<interview>:<turn>             the interview answer modal
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

MAX_LENGTH = 100

# Fragments shared with the discord.py DynamicItem templates in bot/discord/views.py.
SESSION = r"[0-9A-Za-z_-]{1,40}"
NUMBER = r"[0-9]{1,19}"
POSITION = r"[0-9]{1,3}"
CHOICE = r"[0-3]"
SLUG = r"[a-z0-9]+(?:-[a-z0-9]+){0,15}"
DRAFT = r"[0-9a-f]{8,16}"
TOKEN = r"[0-9a-f]{12}"  # a held voice transcript (bot/handlers/voice.py)

TEMPLATES: dict[str, str] = {
    "answer": rf"q:(?P<session>{SESSION}):(?P<position>{POSITION}):(?P<choice>{CHOICE})",
    "next": rf"n:(?P<session>{SESSION}):(?P<position>{POSITION})",
    "stop": rf"s:(?P<session>{SESSION})",
    "read": rf"b:(?P<bite>{SLUG})",
    "quiz_bite": rf"z:(?P<bite>{SLUG})",
    "explain": rf"x:(?P<bite>{SLUG})",
    "regrade": rf"g:(?P<bite>{SLUG}):(?P<draft>{DRAFT})",
    "report": rf"r:(?P<kind>[qb]):(?P<item>{SLUG})",
    "daily": rf"d:(?P<day>20[0-9]{{2}}(?:0[1-9]|1[0-2])(?:0[1-9]|[12][0-9]|3[01])):(?P<choice>{CHOICE})",
    "forget": r"f:(?P<nonce>[0-9a-f]{6,16})",
    "answer_modal": rf"m:(?P<bite>{SLUG}|-)",
    "report_modal": rf"rm:(?P<kind>[qb]):(?P<item>{SLUG})",
    "voice_grade": rf"vg:(?P<token>{TOKEN}):(?P<bite>{SLUG}|-)",
    "voice_fix": rf"vf:(?P<token>{TOKEN})",
    "voice_modal": rf"vm:(?P<token>{TOKEN})",
    "interview_answer": rf"ia:(?P<interview>{NUMBER}):(?P<turn>{POSITION})",
    "interview_pass": rf"ip:(?P<interview>{NUMBER}):(?P<turn>{POSITION})",
    "interview_end": rf"ie:(?P<interview>{NUMBER})",
    "interview_modal": rf"im:(?P<interview>{NUMBER}):(?P<turn>{POSITION})",
}
_COMPILED = {name: re.compile(pattern) for name, pattern in TEMPLATES.items()}
_INT_FIELDS = {"position", "choice", "interview", "turn"}


@dataclass(frozen=True)
class Decoded:
    action: str
    fields: dict

    def __getattr__(self, name):
        try:
            return self.fields[name]
        except KeyError:
            raise AttributeError(name) from None


class EncodeError(ValueError):
    """The values do not fit the id format (a bug in the caller, never user input)."""


def _check(action: str, custom_id: str) -> str:
    if len(custom_id) > MAX_LENGTH or not _COMPILED[action].fullmatch(custom_id):
        raise EncodeError(f"cannot encode {action} as {custom_id[:120]!r}")
    return custom_id


def answer(session: str, position: int, choice: int) -> str:
    return _check("answer", f"q:{session}:{position}:{choice}")


def next_question(session: str, position: int) -> str:
    return _check("next", f"n:{session}:{position}")


def stop(session: str) -> str:
    return _check("stop", f"s:{session}")


def read_bite(bite_id: str) -> str:
    return _check("read", f"b:{bite_id}")


def quiz_bite(bite_id: str) -> str:
    return _check("quiz_bite", f"z:{bite_id}")


def explain(bite_id: str) -> str:
    return _check("explain", f"x:{bite_id}")


def regrade(bite_id: str, draft: str) -> str:
    return _check("regrade", f"g:{bite_id}:{draft}")


def report(kind: str, item_id: str) -> str:
    return _check("report", f"r:{kind}:{item_id}")


def daily(day, choice: int) -> str:
    """`day` is the post's local date; the guild always comes from the interaction."""
    return _check("daily", f"d:{day:%Y%m%d}:{choice}")


def forget(nonce: str) -> str:
    return _check("forget", f"f:{nonce}")


def answer_modal(bite_id: str | None) -> str:
    return _check("answer_modal", f"m:{bite_id or '-'}")


def report_modal(kind: str, item_id: str) -> str:
    return _check("report_modal", f"rm:{kind}:{item_id}")


def voice_grade(token: str, bite_id: str | None = None) -> str:
    return _check("voice_grade", f"vg:{token}:{bite_id or '-'}")


def voice_fix(token: str) -> str:
    return _check("voice_fix", f"vf:{token}")


def voice_modal(token: str) -> str:
    return _check("voice_modal", f"vm:{token}")


def interview_answer(interview_id: int, turn: int) -> str:
    return _check("interview_answer", f"ia:{interview_id}:{turn}")


def interview_pass(interview_id: int, turn: int) -> str:
    return _check("interview_pass", f"ip:{interview_id}:{turn}")


def interview_end(interview_id: int) -> str:
    return _check("interview_end", f"ie:{interview_id}")


def interview_modal(interview_id: int, turn: int) -> str:
    return _check("interview_modal", f"im:{interview_id}:{turn}")


def decode(custom_id) -> Decoded | None:
    """The action and its typed fields, or None for anything malformed. Never raises."""
    if not isinstance(custom_id, str) or not custom_id or len(custom_id) > MAX_LENGTH:
        return None
    for action, pattern in _COMPILED.items():
        match = pattern.fullmatch(custom_id)
        if match:
            fields = {k: int(v) if k in _INT_FIELDS else v for k, v in match.groupdict().items()}
            if fields.get("bite") == "-":
                fields["bite"] = None
            if action == "daily":
                try:
                    fields["day"] = date(int(fields["day"][:4]), int(fields["day"][4:6]), int(fields["day"][6:]))
                except ValueError:  # 20260231 matches the pattern but is no date
                    return None
            return Decoded(action, fields)
    return None
