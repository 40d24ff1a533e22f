"""`coach chat`: `/explain kv cache audio:FILE` transcribes the file, shows the transcript to
confirm (`grade`) or fix (`fix`), then grades it through the same handlers as Discord."""

import io

from bot.console.chat import Console
from bot.handlers import Handlers
from bot.services import build_services
from bot.speech import SharedSpeech
from coach.config import load_settings
from coach.voice.answer import InProcessSpeech
from tests.voice.conftest import AUDIO


async def test_console_answers_with_a_recording(tmp_path, shipped_catalog, shipped_topics, shipped_data_dir,
                                                transcriber):
    settings = load_settings(_env_file=None, database_url=f"sqlite+aiosqlite:///{tmp_path / 'coach.db'}",
                             data_dir=shipped_data_dir, llm_enabled=False, picture_workers=0)
    services = await build_services(settings, catalog=shipped_catalog, topics=shipped_topics,
                                    speech=SharedSpeech(InProcessSpeech(transcriber)))
    fixed = "The KV cache keeps the keys and values of earlier tokens, so a decode step computes only the newest one."
    script = "\n".join([
        f"/explain kv cache audio:{tmp_path / 'missing.ogg'}",
        f"/explain kv cache audio:{AUDIO / 'not_audio.ogg'}",
        f"/explain kv cache audio:{AUDIO / 'kv_cache.ogg'}", "fix", fixed,
        f"/explain kv cache audio:{AUDIO / 'rambling_fillers.ogg'}", "grade",
        "/stats", "/quit",
    ]) + "\n"
    out = io.StringIO()
    try:
        assert await Console(Handlers(services), io.StringIO(script), out).run() == 0
    finally:
        await services.close()
    text = out.getvalue()
    assert f"There is no file '{tmp_path / 'missing.ogg'}'" in text
    assert "couldn't read that file as audio" in text
    assert text.count("== Your answer, as I heard it ==") == 2 and "[1] Grade it  [2] Fix the transcript" in text
    assert "Now: The KV cache" in text, "the fix box shows the transcript to edit"
    graded = text.split("== Score ")[1:]
    assert len(graded) == 2 and all("-- How you said it --" in g for g in graded)
    assert "Graded against The KV cache" in graded[0]
    assert "fillers a minute" in graded[1], "the rambling answer's fillers are coached"
    assert "2 voice answers; the latest first:" in text, "/stats tracks the delivery"


async def test_console_interview_turn_answered_with_a_recording(tmp_path, shipped_catalog, shipped_topics,
                                                                shipped_data_dir, transcriber):
    """`/interview`, then `audio:FILE` at the answer prompt: the transcript first, `grade`, the turn."""
    settings = load_settings(_env_file=None, database_url=f"sqlite+aiosqlite:///{tmp_path / 'coach.db'}",
                             data_dir=shipped_data_dir, llm_enabled=False, picture_workers=0, grader_workers=0)
    services = await build_services(settings, catalog=shipped_catalog, topics=shipped_topics,
                                    speech=SharedSpeech(InProcessSpeech(transcriber)))
    script = "\n".join([
        "/interview kv cache questions:1", f"audio:{AUDIO / 'kv_cache.ogg'}", "grade", "end", "/quit",
    ]) + "\n"
    out = io.StringIO()
    try:
        assert await Console(Handlers(services), io.StringIO(script), out).run() == 0
        state = (await services.coach.interviews.history(1))
    finally:
        await services.close()
    text = out.getvalue()
    assert "== Interview — question 1 of 1 ==" in text
    assert "== Your answer, as I heard it ==" in text and "Graded against The KV cache" in text
    after = text.split("== Your answer, as I heard it ==")[1]
    assert "== Interview" in after, "Grade it answered the interview's turn"
    assert len(state) == 1, "the interview is over and kept"
