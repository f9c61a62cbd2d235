"""A clock for deadline and retry tests: time moves only when told to, never by waiting.

`sleep` returns at once and moves time on; `advance` (called by a test, or by the fake model
server when a request arrives) moves it too, and ends every `timeout` block whose time has come,
just as a real timer would, but on the test's signal instead of after real seconds.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass, field


@dataclass
class FakeClock:
    """Conforms to grounding.deadline.Clock; `sleeps` records every wait asked for."""

    time: float = 1000.0
    sleeps: list[float] = field(default_factory=list)
    _timers: list[tuple[float, asyncio.Timeout]] = field(default_factory=list)

    def now(self) -> float:
        return self.time

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.advance(seconds)

    def deadlines(self) -> list[float]:
        """When each open `timeout` block ends: the times the code under test now waits for."""
        return [expires for expires, _ in self._timers]

    def advance(self, seconds: float) -> None:
        self.time += seconds
        for expires, timer in self._timers:
            if self.time >= expires and timer.when() is None:
                timer.reschedule(asyncio.get_running_loop().time())  # fires at once

    def timeout(self, seconds: float) -> AbstractAsyncContextManager[object]:
        return self._timeout(seconds)

    @asynccontextmanager
    async def _timeout(self, seconds: float) -> AsyncIterator[None]:
        async with asyncio.timeout(None) as timer:
            entry = (self.time + seconds, timer)
            self._timers.append(entry)
            try:
                self.advance(0.0)  # a block opened with no time left ends at once
                yield
            finally:
                self._timers.remove(entry)
