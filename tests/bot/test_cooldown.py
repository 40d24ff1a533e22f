"""The /explain cool-down: a use is spent only when a grading runs."""

from coach.config import load_settings
from bot.handlers import Actor, Handlers
from bot.ratelimit import Cooldown
from bot.services import Services


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_take_counts_only_free_uses_and_frees_them_after_the_window():
    clock = Clock()
    cooldown = Cooldown(limit=2, window_s=60, clock=clock)
    assert [cooldown.take("u") for _ in range(2)] == [0.0, 0.0]
    assert cooldown.take("u") == 60.0 and cooldown.take("u") == 60.0  # refusals are not counted
    clock.now = 60.0
    assert cooldown.take("u") == 0.0


async def test_grading_unavailable_spends_no_use(shipped_catalog):
    settings = load_settings(_env_file=None, explain_rate_limit=1)
    services = Services(settings=settings, store=None, catalog=shipped_catalog, coach=None,
                        _grader_error="no grading pipeline here")
    handlers = Handlers(services)
    actor = Actor(user_id=7, request_id="r1")
    replies = [await handlers.grade(actor, "Keys and values are cached per layer.", "kv-cache") for _ in range(3)]
    assert [r.outcome for r in replies] == ["grading_unavailable"] * 3
    assert services.explain_cooldown.take(7) == 0.0  # the one use is still free
