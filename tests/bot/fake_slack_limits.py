"""Slack's per-method rate limits, as the fake Slack enforces them on cue: at most `calls` calls
of a method in each window of `per` seconds, the rest answered 429 with a Retry-After of the
whole seconds until the window frees (as Slack's tiers do; e.g. conversations.replies for an app
outside the Marketplace: one a minute). Time comes from `clock`, so a test can move it by hand
and a benchmark can run the limit scaled down on the real clock."""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass


@dataclass
class RateLimit:
    calls: int = 1
    per: float = 60.0
    clock: Callable[[], float] = time.monotonic
    _start: float | None = None
    _used: int = 0
    turned_away: int = 0  # calls answered 429 so far

    def admit(self) -> int | None:
        """None when this call may go through; else the Retry-After, in whole seconds."""
        now = self.clock()
        if self._start is None or now - self._start >= self.per:
            self._start, self._used = now, 0
        if self._used < self.calls:
            self._used += 1
            return None
        self.turned_away += 1
        return max(1, math.ceil(self._start + self.per - now))
