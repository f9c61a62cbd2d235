"""One deadline per answer, across every model call, retry and the regeneration.

A hanging server ends the answer at the deadline as an `error`, after one attempt (timeouts are
not retried); 429 and 5xx are retried only while the wait fits in what is left. Time is the fake
clock's: the fake server moves it on when a request arrives, which ends the call just as a real
timer would, so no test waits for real seconds.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

import pytest

from bot.render.no_answer import MODEL_FAILURE_TEXT, no_answer_text
from grounding.answer import AnswerStatus, NoAnswer
from tests.grounding.fake_clock import FakeClock
from tests.grounding.fake_openai import Recorded, Reply, answer, hang, http_error, trickle
from tests.grounding.openai_harness import API, APIS, ask, error, generation, serve

GOOD = answer([("Timeouts default to five seconds.", ["E1"])])


def _asks_to_wait(status: int, seconds: str) -> Reply:
    return http_error(status, "slow down", headers=(("retry-after", seconds),))


def _on_arrival(clock: FakeClock, *seconds: float) -> Callable[[Recorded], None]:
    """Moves the clock on by the next of `seconds` as each request arrives."""
    steps = list(seconds)
    return lambda _: clock.advance(steps.pop(0))


@pytest.mark.parametrize("api", APIS)
@pytest.mark.parametrize("wedged", [hang(), trickle()], ids=["hang", "trickle"])
def test_deadline_ends_a_hanging_model_with_an_error_answer(api: API, wedged: Reply) -> None:
    # The call may take 45 s and the answer 45 s; the server hangs while 50 s go by.
    clock = FakeClock()
    answer_, fake = ask(
        api,
        fallback=wedged,
        clock=clock,
        on_request=_on_arrival(clock, 50.0),
        deadline_seconds=45.0,
        timeout_seconds=45.0,
        max_retries=2,
    )
    assert answer_.status is AnswerStatus.ERROR
    assert answer_.reason is NoAnswer.MODEL_TIMEOUT
    assert no_answer_text(answer_) == MODEL_FAILURE_TEXT[NoAnswer.MODEL_TIMEOUT]
    assert answer_.error_detail.startswith("timeout: ")
    assert "attempt 1 within the answer's deadline (answer.deadline_seconds: 45 s)" in (
        answer_.error_detail
    )
    assert len(fake.requests) == 1  # a timeout is not retried


@pytest.mark.parametrize("api", APIS)
def test_deadline_a_timed_out_call_is_not_retried_though_time_is_left(api: API) -> None:
    clock = FakeClock()
    outcome, fake = serve(
        api,
        fallback=hang(),
        clock=clock,
        on_request=_on_arrival(clock, 31.0),
        deadline_seconds=45.0,
        timeout_seconds=30.0,
        max_retries=2,
    )
    assert error(outcome).kind == "timeout"
    assert "answer.timeout_seconds (30 s); timeouts are not retried" in str(error(outcome))
    assert len(fake.requests) == 1


@pytest.mark.parametrize("api", APIS)
def test_deadline_a_retry_gets_only_what_is_left_of_the_deadline(api: API) -> None:
    # 20 s pass in a 503; its retry may take only the 25 s left, not timeout_seconds' 30.
    clock = FakeClock()
    outcome, fake = serve(
        api,
        http_error(503),
        fallback=hang(),
        clock=clock,
        on_request=_on_arrival(clock, 20.0, 25.0),
        deadline_seconds=45.0,
        timeout_seconds=30.0,
        max_retries=2,
    )
    failure = error(outcome)
    assert failure.kind == "timeout"
    assert "attempt 2 within the answer's deadline (answer.deadline_seconds: 45 s)" in str(failure)
    assert len(fake.requests) == 2


def test_deadline_covers_the_regeneration_too(caplog: pytest.LogCaptureFixture) -> None:
    # The first reply, 40 s in, cites an id that is not in the evidence; the regeneration has
    # the 5 s left and hangs. The answer comes back at the deadline, verified from the first.
    clock = FakeClock()
    invented = answer([("Timeouts default to five seconds.", ["E1"]), ("Pools.", ["E9"])])
    with caplog.at_level(logging.WARNING):
        answer_, fake = ask(
            "chat",
            invented,
            hang(),
            clock=clock,
            on_request=_on_arrival(clock, 40.0, 5.0),
            deadline_seconds=45.0,
            timeout_seconds=45.0,
        )
    assert len(fake.requests) == 2
    assert answer_.status is AnswerStatus.ANSWERED
    assert [claim.text for claim in answer_.claims] == ["Timeouts default to five seconds."]
    (failed,) = [r.getMessage() for r in caplog.records if "regeneration failed" in r.getMessage()]
    assert "kind=timeout" in failed and "attempt 1 within the answer's deadline" in failed


@pytest.mark.parametrize("api", APIS)
def test_deadline_retry_after_that_fits_is_waited_for(api: API) -> None:
    clock = FakeClock()
    outcome, fake = serve(
        api, _asks_to_wait(429, "7"), GOOD, deadline_seconds=45.0, clock=clock, max_retries=2
    )
    assert generation(outcome).response.claims[0].citations == ["E1"]
    assert clock.sleeps == [7.0]
    assert len(fake.requests) == 2


@pytest.mark.parametrize("status", [429, 503])
def test_deadline_retry_after_past_the_deadline_is_not_waited_for(status: int) -> None:
    clock = FakeClock()
    outcome, fake = serve(
        "responses",
        _asks_to_wait(status, "60"),
        GOOD,
        deadline_seconds=45.0,
        clock=clock,
        max_retries=2,
    )
    failure = error(outcome)
    assert failure.kind == ("rate_limited" if status == 429 else "unavailable")
    assert "the wait of 60.0 s would end after the answer's deadline" in str(failure)
    assert clock.sleeps == []
    assert len(fake.requests) == 1


def test_deadline_without_retry_after_backs_off_and_retries() -> None:
    clock = FakeClock()
    bare_500 = http_error(500, headers=())
    outcome, fake = serve(
        "chat", bare_500, bare_500, GOOD, deadline_seconds=45.0, clock=clock, max_retries=2
    )
    generation(outcome)
    first, second = clock.sleeps
    assert 0.375 <= first <= 0.5 and 0.75 <= second <= 1.0  # doubling, up to a quarter shorter
    assert len(fake.requests) == 3


@pytest.mark.parametrize("status", [400, 401, 404, 422])
def test_deadline_other_statuses_are_never_retried(status: int) -> None:
    clock = FakeClock()
    outcome, fake = serve("responses", fallback=http_error(status), clock=clock, max_retries=2)
    error(outcome)
    assert len(fake.requests) == 1 and clock.sleeps == []


def test_deadline_already_spent_sends_nothing() -> None:
    outcome, fake = serve("responses", GOOD, deadline_seconds=0.0)
    assert error(outcome).kind == "timeout"
    assert "no time was left of answer.deadline_seconds" in str(error(outcome))
    assert fake.requests == []
