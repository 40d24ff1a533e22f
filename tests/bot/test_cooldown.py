"""The /explain cool-down in the handlers (a use is spent only when a grading runs) and the
services' purge of expired state."""

from coach.config import load_settings
from bot.handlers import Actor, Handlers
from bot.services import Services
from tests.coach.helpers import Clock


async def test_grading_unavailable_spends_no_use(shipped_catalog, store):
    settings = load_settings(_env_file=None, explain_rate_limit=1)
    services = Services(settings=settings, store=store, catalog=shipped_catalog, coach=None,
                        _grader_error="no grading pipeline here")
    handlers = Handlers(services)
    actor = Actor(user_id=7, request_id="r1")
    replies = [await handlers.grade(actor, "Keys and values are cached per layer.", "kv-cache") for _ in range(3)]
    assert [r.outcome for r in replies] == ["grading_unavailable"] * 3
    assert await services.explain_cooldown.uses_left(7) == 1  # the one use is still free


async def test_the_services_purge_deletes_what_has_expired_by_their_clock(shipped_catalog, store):
    clock = Clock()
    services = Services(settings=load_settings(_env_file=None, explain_rate_window_s=3600), store=store,
                        catalog=shipped_catalog, coach=None, clock=clock)
    await services.drafts.keep(7, "an answer")
    await services.explain_cooldown.spend_use(7)
    assert await services.purge_expired_state() == 0
    clock.advance(minutes=14)
    assert await services.purge_expired_state() == 1, "the draft; the cool-down's use lasts its window"
    clock.advance(seconds=services.settings.explain_rate_window_s)
    assert await services.purge_expired_state() == 1
