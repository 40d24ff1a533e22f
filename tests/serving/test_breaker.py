import pytest

from serving.breaker import CircuitBreaker


class FakeClock:
    def __init__(self):
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock():
    return FakeClock()


def test_opens_only_after_consecutive_failures(clock):
    breaker = CircuitBreaker(3, 10.0, clock=clock)
    breaker.record_failure()
    breaker.record_failure()
    breaker.record_success()  # a success in between resets the run
    breaker.record_failure()
    breaker.record_failure()
    assert breaker.state == "closed" and breaker.allow()
    breaker.record_failure()
    assert breaker.state == "open"
    assert not breaker.allow()


def test_half_open_after_cooldown_allows_a_single_trial(clock):
    breaker = CircuitBreaker(1, 10.0, clock=clock)
    breaker.record_failure()
    clock.now += 9.9
    assert breaker.state == "open"
    clock.now += 0.1
    assert breaker.state == "half_open"
    assert breaker.allow()
    assert not breaker.allow()  # the trial is still out


def test_trial_success_closes_and_trial_failure_restarts_cooldown(clock):
    breaker = CircuitBreaker(2, 5.0, clock=clock)
    breaker.record_failure()
    breaker.record_failure()
    clock.now += 5
    assert breaker.allow()
    breaker.record_failure()
    assert breaker.state == "open"
    clock.now += 4.9
    assert breaker.state == "open"
    clock.now += 0.1
    assert breaker.allow()
    breaker.record_success()
    assert breaker.state == "closed" and breaker.consecutive_failures == 0


def test_released_trial_lets_another_caller_try(clock):
    breaker = CircuitBreaker(1, 1.0, clock=clock)
    breaker.record_failure()
    clock.now += 1
    assert breaker.allow()
    breaker.release_trial()
    assert breaker.allow()


def test_state_changes_are_reported(clock):
    seen = []
    breaker = CircuitBreaker(1, 1.0, clock=clock)
    breaker.on_change = seen.append
    breaker.record_failure()
    clock.now += 1
    breaker.allow()
    breaker.record_success()
    assert seen == ["open", "half_open", "closed"]


def test_threshold_must_be_positive():
    with pytest.raises(ValueError):
        CircuitBreaker(0, 1.0)
