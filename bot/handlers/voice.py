"""Voice answers, shared by Discord and the console: a recording is checked before it is
downloaded, transcribed (bot/speech.py), shown first with "Grade it" and "Fix the
transcript", then graded by the same path as a typed answer (`Handlers.grade` with the spoken
answer), the delivery under the grade.

State lives in the database with an expiry (the Store's expiring state), never in this
process, so a restart or a second bot process changes nothing:
- `voice_prompt` / <user>: the member's latest `/explain` prompt (bite, server, channel) for
  15 minutes: a DM voice message answers it and counts for that server; a channel voice
  message answers it only in the channel it was opened in.
- `voice_transcript` / <user>: the member's latest transcript and its delivery figures, for
  at most 15 minutes, under a random token the buttons carry (an older transcript's buttons then say
  it is gone). Audio is never stored; the attempt keeps the transcript only if the member
  keeps answers.
- `voice_listening` / <user>: a recording of theirs is being transcribed (one at a time).
While the member has an interview open, a DM voice message (or the console's `audio:FILE`)
answers its current turn instead: the held transcript names the interview and the turn, and
"Grade it" hands it to the interview (bot/handlers/interview.py).
Every row is owned by the member (`user_owner`): /forget deletes them.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import secrets
from dataclasses import dataclass, replace
from datetime import timedelta
from typing import Awaitable, Callable

from bot import custom_ids as ids
from bot.render import texts
from bot.render import voice as voice_render
from bot.render.replies import Reply, notice
from coach.voice.delivery import Delivery
from coach.store.state import PURGE_EVERY, user_owner
from coach.voice.answer import SpokenAnswer, transcribe_answer

log = logging.getLogger("coach.bot.voice")

PROMPT_KIND, HELD_KIND, LISTENING_KIND = "voice_prompt", "voice_transcript", "voice_listening"
PROMPT_WINDOW = timedelta(minutes=voice_render.PROMPT_MINUTES)
# Readable for one purge interval less than promised, so the row is gone within the promise.
HELD_FOR = timedelta(minutes=voice_render.HELD_MINUTES) - PURGE_EVERY
# One recording per member at a time, so one member cannot fill the speech pool; the row's
# expiry only matters if a process dies mid-transcription (SPEECH_TIMEOUT_S is 2 minutes).
LISTENING_FOR = timedelta(minutes=3)
# What may hold a recording: audio, a video container (phones record m4a/mp4/webm), Ogg, or a
# type Discord could not tell (PyAV decides from the bytes, never from the name).
AUDIO_PREFIXES = ("audio/", "video/")
AUDIO_TYPES = {"application/ogg", "application/octet-stream"}
WHICH_BITE_SHOWN = 3
RETRY_COMMAND = "Run `/explain` again with another recording, or type your answer."
RETRY_MESSAGE = "Send another voice message to try again, or type your answer with `/explain`."
EMPTY_FIX = "The transcript is empty. Type your answer as you said it, or send the recording again."


@dataclass(frozen=True)
class Recording:
    """A recording as the adapter sees it before downloading: enough to refuse it unread."""

    filename: str
    size: int
    content_type: str | None
    duration_s: float | None  # a Discord voice message says; an uploaded file does not
    fetch: Callable[[], Awaitable[bytes]]


class DownloadFailed(Exception):
    """The adapter could not get the recording's bytes."""


def file_recording(path: str) -> Recording | None:
    """A recording on this machine (the console's `audio:path`), or None if there is no such file.
    The content type is guessed from the name, as Discord does; the decoder trusts only the bytes."""
    import mimetypes
    from pathlib import Path

    file = Path(path).expanduser()
    if not file.is_file():
        return None

    async def fetch() -> bytes:
        try:
            return await asyncio.to_thread(file.read_bytes)
        except OSError as error:
            raise DownloadFailed(str(error)) from None

    kind = "audio/ogg" if file.suffix.lower() in (".ogg", ".opus") else mimetypes.guess_type(file.name)[0]
    return Recording(file.name, file.stat().st_size, kind, None, fetch)


class VoiceHandlers:
    def __init__(self, handlers):
        self.handlers = handlers
        self.services = handlers.services
        self.catalog = handlers.catalog

    @property
    def store(self):
        return self.services.store

    def _now(self):
        return self.services.clock()  # the coach's clock unless a test injects one

    # ----- the /explain prompt a voice message answers ----------------------------------
    async def prompt_opened(self, actor, bite, reply: Reply) -> Reply:
        """Remember the member's prompt for voice messages, and say how to answer out loud."""
        prompt = {"bite_id": bite.id, "guild_id": actor.guild_id, "channel_id": actor.channel_id}
        await self.store.put_state(PROMPT_KIND, str(actor.user_id), prompt, PROMPT_WINDOW,
                                   owner=user_owner(actor.user_id), now=self._now())
        return voice_render.voice_hint(reply)

    # ----- entry points: a recording arrives --------------------------------------------
    async def explain_audio(self, actor, topic: str | None, recording: Recording) -> Reply:
        """`/explain topic:… audio:…`: with a topic the bite is known (and biases the
        transcription); without one the grader finds it from the answer."""
        bite = None
        if topic and topic.strip():
            bite, _ = await self.handlers.find_bite(topic)
            if bite is None:
                return notice("I couldn't find a bite on that topic. Try other words, or leave the topic out and "
                              "I'll find it from your answer.", outcome="not_found")
        return await self._hear(actor, recording, bite, guild_id=actor.guild_id, retry=RETRY_COMMAND)

    async def voice_message(self, actor, recording: Recording, *, in_dm: bool) -> Reply | None:
        """A voice message. In a DM it answers the member's prompt of the last 15 minutes (for
        that prompt's server), or, with none, asks which bite. In a channel it answers only a
        prompt opened in that channel; anything else is not for the coach (None)."""
        if in_dm and await self.handlers.coach.interviews.open_for(actor.user_id) is not None:
            return await self.interview_audio(actor, recording, ephemeral=False)
        prompt = await self.store.get_state(PROMPT_KIND, str(actor.user_id), now=self._now())
        bite = self.catalog.bites.get(prompt["bite_id"]) if prompt else None
        if not in_dm and (bite is None or prompt["channel_id"] != actor.channel_id):
            return None
        if bite is None:
            reply = await self._hear(actor, recording, None, guild_id=0, retry=RETRY_MESSAGE, ephemeral=False,
                                     ask_which=True)
            return voice_render.no_prompt_intro(reply) if reply.outcome == "transcript" else reply
        return await self._hear(actor, recording, bite, guild_id=prompt["guild_id"], retry=RETRY_MESSAGE,
                                ephemeral=False)

    async def interview_audio(self, actor, recording: Recording, *, ephemeral: bool = True) -> Reply:
        """A recording that answers the member's open interview's current turn."""
        state = await self.handlers.coach.interviews.open_for(actor.user_id)
        if state is None or state.asking is None:
            return notice(voice_render.NO_INTERVIEW, outcome="not_found")
        bite = self.catalog.bites[state.bite_ids[state.asking[0]]]
        return await self._hear(actor, recording, bite, guild_id=state.guild_id, retry=voice_render.RETRY_INTERVIEW,
                                ephemeral=ephemeral, interview=(state.interview_id, state.turn))

    def refusal(self, recording: Recording) -> tuple[str, str] | None:
        """(message, code) for a recording to refuse before downloading it, else None."""
        from serving.speech import too_large, too_long

        limits = self.services.settings
        kind = (recording.content_type or "").split(";")[0].strip().lower()
        if kind and not kind.startswith(AUDIO_PREFIXES) and kind not in AUDIO_TYPES:
            return voice_render.not_audio(kind), "not_audio"
        if recording.size > limits.speech_max_bytes:
            return too_large(recording.size, limits.speech_max_bytes).user_message, "too_large"
        if recording.duration_s is not None and recording.duration_s > limits.speech_max_seconds:
            return too_long(recording.duration_s, limits.speech_max_seconds, "declared").user_message, "too_long"
        return None

    async def _hear(self, actor, recording: Recording, bite, *, guild_id: int, retry: str, ephemeral: bool = True,
                    ask_which: bool = False, interview: tuple[int, int] | None = None) -> Reply:
        from serving.speech import SpeechError

        refusal = self.refusal(recording)
        if refusal is not None:
            return voice_render.refused(*refusal, retry)
        member = str(actor.user_id)
        if not await self.store.claim_state(LISTENING_KIND, member, {}, LISTENING_FOR, owner=user_owner(actor.user_id),
                                            now=self._now()):
            return notice(voice_render.STILL_LISTENING, outcome="voice_busy")
        try:
            spoken = await self._transcribe(recording, bite)
        except (DownloadFailed, SpeechError) as error:
            code = getattr(error, "code", "download")
            log.info("recording refused", extra={"code": code, "detail": getattr(error, "detail", str(error))})
            message = error.user_message if isinstance(error, SpeechError) else voice_render.DOWNLOAD_FAILED
            return voice_render.refused(message, code, retry)
        finally:
            await self.store.delete_state(LISTENING_KIND, member)
        token = await self._hold(actor.user_id, spoken, guild_id, interview=interview)
        suggestions = await self._closest_bites(spoken.transcript) if bite is None and ask_which else ()
        return voice_render.transcript(token, spoken, bite, suggestions, ephemeral=ephemeral)

    async def _transcribe(self, recording: Recording, bite) -> SpokenAnswer:
        data = await recording.fetch()  # audio lives only in this frame: never stored
        return await transcribe_answer(self.services.speech, data, bite)

    async def _closest_bites(self, text: str):
        topics = await self.services.topics()
        found = await asyncio.to_thread(topics.find, text, WHICH_BITE_SHOWN)
        return tuple(found.results[:WHICH_BITE_SHOWN])

    # ----- the held transcript ------------------------------------------------------------
    async def _hold(self, user_id: int, spoken: SpokenAnswer, guild_id: int, token: str | None = None, *,
                    interview: tuple[int, int] | list | None = None) -> str:
        token = token or secrets.token_hex(6)
        held = {"token": token, "guild_id": guild_id, "bite_id": spoken.bite_id, "transcript": spoken.transcript,
                "heard": spoken.heard, "delivery": spoken.delivery.model_dump(mode="json"),
                "decode_s": spoken.decode_s, "interview": list(interview) if interview else None}
        await self.store.put_state(HELD_KIND, str(user_id), held, HELD_FOR, owner=user_owner(user_id), now=self._now())
        return token

    async def _held(self, user_id: int, token: str) -> dict | None:
        """The member's held transcript if `token` is still it (the key is the member: a
        transcript is only ever theirs)."""
        held = await self.store.get_state(HELD_KIND, str(user_id), now=self._now())
        return held if held is not None and held.get("token") == token else None

    @staticmethod
    def _spoken(held: dict) -> SpokenAnswer:
        return SpokenAnswer(transcript=held["transcript"], delivery=Delivery.model_validate(held["delivery"]),
                            heard=held["heard"], bite_id=held["bite_id"], decode_s=held["decode_s"])

    # ----- buttons and the fix modal ------------------------------------------------------
    async def press(self, actor, d) -> Reply:
        held = await self._held(actor.user_id, d.token)
        if held is None:
            return voice_render.held_gone()
        if d.action == "voice_fix":
            return voice_render.fix_modal(d.token, held["transcript"])
        return await self._grade(actor, d.token, held, d.bite or held["bite_id"])

    async def submit(self, actor, d, values: dict[str, str]) -> Reply:
        held = await self._held(actor.user_id, d.token)
        if held is None:
            return voice_render.held_gone()
        text = " ".join((values.get("transcript") or "").split())
        if not text:
            return notice(EMPTY_FIX, outcome="invalid")
        spoken = self._spoken(held).corrected(text)
        await self._hold(actor.user_id, spoken, held["guild_id"], d.token,  # "Grade as" buttons use the fix too
                         interview=held.get("interview"))
        return await self._grade(actor, d.token, {**held, "transcript": spoken.transcript}, held["bite_id"])

    async def _grade(self, actor, token: str, held: dict, bite_id: str | None) -> Reply:
        if bite_id is not None and bite_id not in self.catalog.bites:
            return notice(texts.BITE_GONE, outcome="not_found")
        spoken = self._spoken(held)
        if held.get("interview"):  # an interview turn: graded there, once, like a typed answer to it
            interview_id, turn = held["interview"]
            return await self.handlers.interviewing.submit(actor, interview_id, turn, spoken.transcript)
        # One attempt per transcript text and bite: a second click stores and credits nothing new.
        digest = hashlib.sha1(spoken.transcript.encode()).hexdigest()[:10]
        reply = await self.handlers.grade(replace(actor, guild_id=held["guild_id"]), spoken.transcript, bite_id,
                                          spoken=spoken, attempt_key=f"voice:{token}:{bite_id or '-'}:{digest}",
                                          held=token)
        return _spoken_regrades(reply, token)


def _spoken_regrades(reply: Reply, token: str) -> Reply:
    """"Grade as: <other bite>" on a voice answer grades the held transcript, delivery and all
    (the grade was rendered with the transcript's token standing in for a typed answer's draft)."""
    buttons = []
    for button in reply.buttons:
        d = ids.decode(button.custom_id)
        if d is not None and d.action == "regrade":
            button = replace(button, custom_id=ids.voice_grade(token, d.bite))
        buttons.append(button)
    return replace(reply, buttons=tuple(buttons))
