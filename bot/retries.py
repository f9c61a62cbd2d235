"""How the Slack Web API client retries a call: a 429 after Slack's Retry-After, a 500/503 or a
dropped connection after a backoff; and the one place where it waits, so tests need not.

slack_sdk's own handlers sleep with asyncio.sleep and cannot be told otherwise; these are the
same handlers with the waiting (`sleep`) and the backoff passed in.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from slack_sdk.http_retry.async_handler import AsyncRetryHandler
from slack_sdk.http_retry.builtin_async_handlers import (
    AsyncConnectionErrorRetryHandler,
    AsyncRateLimitErrorRetryHandler,
    AsyncServerErrorRetryHandler,
)
from slack_sdk.http_retry.builtin_interval_calculators import BackoffRetryIntervalCalculator
from slack_sdk.http_retry.interval_calculator import RetryIntervalCalculator
from slack_sdk.http_retry.request import HttpRequest
from slack_sdk.http_retry.response import HttpResponse
from slack_sdk.http_retry.state import RetryState

Sleep = Callable[[float], Awaitable[None]]
# Slack asks clients to wait Retry-After on 429; two tries cover a burst without stalling a reply.
RATE_LIMIT_RETRIES = 2
SERVER_ERROR_RETRIES = 2
CONNECTION_RETRIES = 1
# When a 429 carries no usable Retry-After (Slack's always does), as slack_sdk waits.
DEFAULT_RETRY_AFTER_SECONDS = 1.0


@dataclass(frozen=True)
class RetryPolicy:
    """The production defaults are slack_sdk's: exponential backoff with jitter from 0.5 s, and
    Retry-After plus up to a second of jitter. Tests pass a `sleep` that records the wait."""

    rate_limit_retries: int = RATE_LIMIT_RETRIES
    server_error_retries: int = SERVER_ERROR_RETRIES
    connection_retries: int = CONNECTION_RETRIES
    backoff: RetryIntervalCalculator = field(default_factory=BackoffRetryIntervalCalculator)
    sleep: Sleep = asyncio.sleep
    jitter: Callable[[], float] = random.random  # added to Retry-After, so clients spread out

    def handlers(self) -> list[AsyncRetryHandler]:
        return [
            _ConnectionErrors(self.connection_retries, self.backoff, self.sleep),
            _RateLimited(self.rate_limit_retries, self.sleep, self.jitter),
            _ServerErrors(self.server_error_retries, self.backoff, self.sleep),
        ]


def retry_after_seconds(response: HttpResponse) -> float:
    """Slack's Retry-After in seconds; a missing or unreadable one counts as one second."""
    for name, values in response.headers.items():
        if name.lower() == "retry-after" and values:
            return header_seconds(values[0])
    return DEFAULT_RETRY_AFTER_SECONDS


def header_seconds(value: object) -> float:
    """A Retry-After header's value in seconds; an unreadable or negative one counts as
    DEFAULT_RETRY_AFTER_SECONDS (as slack_sdk waits)."""
    try:
        seconds = float(str(value))
    except ValueError:
        return DEFAULT_RETRY_AFTER_SECONDS
    return seconds if seconds >= 0 else DEFAULT_RETRY_AFTER_SECONDS


class _WaitsOnBackoff(AsyncRetryHandler):
    """The base handler's wait after `interval_calculator`, through the injected `sleep`."""

    _sleep: Sleep

    async def prepare_for_next_attempt_async(
        self, *, state: RetryState, request: HttpRequest, response: HttpResponse | None = None,
        error: Exception | None = None,
    ) -> None:  # fmt: skip
        state.next_attempt_requested = True
        await self._sleep(self.interval_calculator.calculate_sleep_duration(state.current_attempt))
        state.increment_current_attempt()


class _ConnectionErrors(_WaitsOnBackoff, AsyncConnectionErrorRetryHandler):
    def __init__(self, retries: int, backoff: RetryIntervalCalculator, sleep: Sleep) -> None:
        super().__init__(max_retry_count=retries, interval_calculator=backoff)
        self._sleep = sleep


class _ServerErrors(_WaitsOnBackoff, AsyncServerErrorRetryHandler):
    def __init__(self, retries: int, backoff: RetryIntervalCalculator, sleep: Sleep) -> None:
        super().__init__(max_retry_count=retries, interval_calculator=backoff)
        self._sleep = sleep


class _RateLimited(AsyncRateLimitErrorRetryHandler):
    def __init__(self, retries: int, sleep: Sleep, jitter: Callable[[], float]) -> None:
        super().__init__(max_retry_count=retries)
        self._sleep = sleep
        self._jitter = jitter

    async def prepare_for_next_attempt_async(
        self, *, state: RetryState, request: HttpRequest, response: HttpResponse | None = None,
        error: Exception | None = None,
    ) -> None:  # fmt: skip
        if response is None:  # only a 429 response gets here (_can_retry_async)
            raise error or RuntimeError("a rate-limit retry without a response")
        state.next_attempt_requested = True
        await self._sleep(retry_after_seconds(response) + self._jitter())
        state.increment_current_attempt()
