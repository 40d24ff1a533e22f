"""The /explain cool-down in the handlers: a use is spent only when a grading runs."""

from coach.config import load_settings
from bot.handlers import Actor, Handlers
from bot.services import Services


async def test_grading_unavailable_spends_no_use(shipped_catalog, store):
    settings = load_settings(_env_file=None, explain_rate_limit=1)
    services = Services(settings=settings, store=store, catalog=shipped_catalog, coach=None,
                        _grader_error="no grading pipeline here")
    handlers = Handlers(services)
    actor = Actor(user_id=7, request_id="r1")
    replies = [await handlers.grade(actor, "Keys and values are cached per layer.", "kv-cache") for _ in range(3)]
    assert [r.outcome for r in replies] == ["grading_unavailable"] * 3
    assert await services.explain_cooldown.uses_left(7) == 1  # the one use is still free
