"""A feedback mark is in the store before Slack hears its acknowledgement, since Slack never
delivers an acknowledged event, button press or modal again.

- A reaction: its event is claimed with the reaction itself as the claim's payload (one
  insert). Working out which answer it is on (for a reply not yet marked, a read of Slack)
  and storing the mark come after the ack; a process killed meanwhile leaves the claim, which
  lapses and is resolved by any replica's resume sweep (bot/resume.py).
- A feedback button press and the "what was wrong?" modal: the mark or the reason itself is
  stored, together with the press or the modal as done in the ledger (`once`), so a delivery
  of it again changes nothing.

Slack wants the acknowledgement within 3 seconds. The store gets ACK_BUDGET_SECONDS of them
(on the deps' clock); a store slower than that does not hold the ack back: the write goes on,
the listener waits for it after the ack, and the log and /metrics (docbot_marks_late_total)
say the mark was not stored in time. What each listener does then is its own: a reaction is
refused for Slack to deliver again while Slack still will (bot/listeners.py); the modal stays
open, to be sent again (the same modal is stored once); a press is acknowledged without it,
and a process killed before the write ends loses it: Slack never delivers a press again, and
the store too slow to take it is the only durable place docbot has.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from grounding.deadline import Clock

log = logging.getLogger("docbot.slack")

# Slack's limit for an acknowledgement is 3 s from sending the request; 1 s of it is left for
# the request to reach docbot, Bolt's own work and the response to reach Slack.
ACK_BUDGET_SECONDS = 2.0

T = TypeVar("T")


async def before_ack(
    work: Awaitable[T], what: str, clock: Clock, late: Callable[[], None],
    budget: float = ACK_BUDGET_SECONDS,
) -> asyncio.Future[T]:  # fmt: skip
    """Start the store work `work` and wait for it for up to `budget` seconds on `clock`: its
    future, done unless the store was slower than that (then still running, logged, and `late`
    called: a count on /metrics). The caller acknowledges next, and awaits the future after the
    ack for the result or the error."""
    future: asyncio.Future[T] = asyncio.ensure_future(work)
    future.add_done_callback(_seen)
    with contextlib.suppress(TimeoutError):
        async with clock.timeout(budget):
            await asyncio.wait({future})
    if not future.done():
        log.warning(
            "%s: not stored within %.1f s; stored once the store answers. The answer store is "
            "slower than Slack's acknowledgement allows: see docbot_marks_late_total on "
            "/metrics and docs/feedback.md", what, budget,
        )  # fmt: skip
        late()
    return future


def _seen(future: asyncio.Future[Any]) -> None:
    """A record whose delivery was refused meanwhile is awaited by nobody: its error (the store
    logs an outage itself) must not end as asyncio's "exception was never retrieved"."""
    if not future.cancelled() and future.exception() is not None:
        log.debug("a mark's record before its ack failed: %r", future.exception())
