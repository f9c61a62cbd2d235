"""What every listener is handed: the live runtime, the store, the claim owner, the clock, and
the runs in flight that shutdown waits for."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Coroutine, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime

from bot.leases import RENEW_EVERY_SECONDS, process_owner
from bot.live import LiveRuntime
from bot.metrics import Metrics
from bot.pending_marks import PendingMarks
from bot.refusals import Refusals
from bot.store import AnswerStore
from grounding.deadline import Clock, SystemClock

# What a delivery refused during shutdown is answered (HTTP status; in Socket Mode, no ack), so
# that Slack delivers it again.
REFUSED_WHILE_CLOSING = 503


def _utc_now() -> datetime:
    return datetime.now(UTC)


class InFlight:
    """The listener runs in progress: Bolt starts each after its ack, in a task of its own, so
    shutdown waits for these to finish their replies (Bolt offers no supported hook for it).

    Once closed, new deliveries are refused before Bolt acknowledges them (bot/app.py), so Slack
    delivers them again later instead of handing them to a process that is going away."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[object]] = set()
        self._closed = False

    @contextlib.contextmanager
    def track(self) -> Iterator[None]:
        """Count the current task as in flight until the block ends."""
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
        try:
            yield
        finally:
            if task is not None:
                self._tasks.discard(task)

    def start(self, run: Coroutine[object, object, None]) -> asyncio.Task[None]:
        """Start `run` in a task of its own, in flight from this moment until it ends (a run
        docbot starts itself, not Bolt; the set holds the task until then)."""
        task = asyncio.create_task(run)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    def pending(self) -> int:
        return sum(1 for task in self._tasks if not task.done())

    def close(self) -> None:
        """Accept no more deliveries (shutdown has begun)."""
        self._closed = True

    @property
    def accepting(self) -> bool:
        return not self._closed

    async def drain(self, seconds: float) -> None:
        """Wait up to `seconds` for the runs in progress to finish."""
        pending = [task for task in self._tasks if not task.done()]
        if pending:
            await asyncio.wait(pending, timeout=seconds)


@dataclass(frozen=True)
class ListenerDeps:
    runtime: LiveRuntime  # the config, answerer and policy of the moment (reloaded on change)
    store: AnswerStore
    now: Callable[[], datetime] = _utc_now
    # Times the waits on Slack a lease bounds (bot/escalation.py); tests pass a fake one.
    clock: Clock = field(default_factory=SystemClock)
    in_flight: InFlight = field(default_factory=InFlight)
    owner: str = field(default_factory=process_owner)  # this process, as the claims' owner
    renew_every: float = RENEW_EVERY_SECONDS
    # Where Slack refused the AI-app status (bot/working.py): :eyes: there instead.
    status: Refusals = field(default_factory=Refusals)
    # Where Slack refused chat.startStream (bot/streaming.py): one post there instead.
    streams: Refusals = field(default_factory=Refusals)
    metrics: Metrics = field(default_factory=Metrics)  # what /metrics shows (bot/metrics.py)
    # Reactions on a reply whose answer is not stored yet (bot/pending_marks.py).
    marks: PendingMarks = field(default_factory=PendingMarks)
