"""How long an answer may take: one deadline per answer across every model call, on a clock that
tests replace, and how long to wait before a retry (the server's Retry-After, else backoff)."""

from __future__ import annotations

import asyncio
import math
import random
import time
from collections.abc import Mapping
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Protocol

# Backoff when the server does not say how long to wait: 0.5 s doubling up to 8 s, each wait
# shortened by up to a quarter at random so that many docbots rate limited at once spread out
# (the same curve as the openai SDK's own retries, which docbot turns off to keep the deadline).
BACKOFF_FIRST_SECONDS = 0.5
BACKOFF_MAX_SECONDS = 8.0
BACKOFF_JITTER = 0.25


class Clock(Protocol):
    """Time as the deadline sees it; tests pass one they move on by hand."""

    def now(self) -> float:
        """Seconds on a monotonic clock."""
        ...

    async def sleep(self, seconds: float) -> None: ...

    def timeout(self, seconds: float) -> AbstractAsyncContextManager[object]:
        """A block that raises TimeoutError once `seconds` have passed on this clock."""
        ...


class SystemClock:
    def now(self) -> float:
        return time.monotonic()

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)

    def timeout(self, seconds: float) -> AbstractAsyncContextManager[object]:
        return asyncio.timeout(seconds)


@dataclass(frozen=True, slots=True)
class Deadline:
    """The moment an answer must be done by; `seconds` is the whole allowance, for messages."""

    seconds: float
    expires_at: float
    clock: Clock
    # What the allowance is, for messages: the answer's, or one step's share of it (`within`).
    label: str = "the answer's deadline"
    setting: str = "answer.deadline_seconds"

    @classmethod
    def start(cls, seconds: float, clock: Clock) -> Deadline:
        return cls(seconds, clock.now() + seconds, clock)

    @classmethod
    def unbounded(cls, clock: Clock) -> Deadline:
        return cls(math.inf, math.inf, clock)

    def within(self, seconds: float, label: str, setting: str) -> Deadline:
        """This deadline, or `seconds` from now (a step's share: `label`, set by `setting`) if
        that comes first."""
        share = self.clock.now() + seconds
        if share < self.expires_at:
            return Deadline(seconds, share, self.clock, label, setting)
        return self

    def remaining(self) -> float:
        return max(0.0, self.expires_at - self.clock.now())


def retry_wait(headers: Mapping[str, str], retries_so_far: int) -> float:
    """Seconds to wait before the next try: what the server asked for, else backoff.

    `retry-after-ms` (OpenAI's) wins over `retry-after` in seconds. A Retry-After given as an
    HTTP date is not read: it would need the wall clock, and model servers send seconds.
    """
    asked = _seconds(headers.get("retry-after-ms"), 1000.0)
    if asked is None:
        asked = _seconds(headers.get("retry-after"), 1.0)
    if asked is not None:
        return asked
    backoff = min(BACKOFF_MAX_SECONDS, BACKOFF_FIRST_SECONDS * 2.0**retries_so_far)
    return backoff * (1.0 - BACKOFF_JITTER * random.random())


def _seconds(value: str | None, per_second: float) -> float | None:
    if value is None:
        return None
    try:
        number = float(value)
    except ValueError:
        return None
    if not math.isfinite(number) or number < 0:
        return None
    return number / per_second
