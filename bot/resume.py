"""Resuming questions whose process died or gave up: the event ledger is also docbot's queue.

Slack delivers an event again only when it was not acknowledged, and docbot acknowledges before
it answers; so a question acknowledged by a process that was then killed, or whose reply could
not be posted, would wait for a redelivery that never comes. Each claim keeps the message
(`Turn.to_payload`); `docbot serve` looks for lapsed, unfinished claims at start-up and then
every RESUME_EVERY_SECONDS, and answers them like a redelivery would (the ledger decides who),
for at most RESUME_WINDOW_SECONDS after the first claim (UNSURE_WINDOW_SECONDS for one whose run
had begun posting; all in bot/leases.py). A reaction's
claim keeps the reaction the same way (bot/marks.py), and is resolved likewise.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from functools import partial

from slack_sdk.web.async_client import AsyncWebClient

from bot.deps import ListenerDeps
from bot.events import Turn
from bot.leases import RESUME_EVERY_SECONDS, RESUME_WINDOW_SECONDS, UNSURE_WINDOW_SECONDS
from bot.pending_marks import key_of
from bot.questions import handle_turn
from bot.reactions import count_pending_later, handle_reaction, reaction_from_payload, renew_kept
from bot.store import EventKey, Resumable, StoreUnavailable

log = logging.getLogger("docbot.slack")

RESUME_BATCH = 50


class Resumer:
    """Bound to the app's listener deps and Web API client by build_app; run by serve."""

    def __init__(self) -> None:
        self._bound: tuple[ListenerDeps, AsyncWebClient] | None = None

    def bind(self, deps: ListenerDeps, client: AsyncWebClient) -> None:
        self._bound = (deps, client)

    async def run(self, every: float = RESUME_EVERY_SECONDS) -> None:
        """Sweep now (a restart resumes at once what the last process left) and then every
        `every` seconds, until cancelled or shutdown begins."""
        while self._bound is not None and self._bound[0].in_flight.accepting:
            try:
                await self.sweep()
            except StoreUnavailable:
                pass  # the store logs its outage once; the next sweep after it resumes all
            except Exception:
                log.exception("looking for unfinished questions to resume failed")
            await asyncio.sleep(every)

    async def sweep(self) -> int:
        """Start answering every resumable question; how many were started."""
        if self._bound is None:
            return 0
        deps, client = self._bound
        await renew_kept(deps)  # the claims of the reactions kept here stay this process's
        count_pending_later(deps)  # reactions kept until their reply's answer is stored
        found = await asyncio.to_thread(
            deps.store.resumable, RESUME_WINDOW_SECONDS, RESUME_BATCH, UNSURE_WINDOW_SECONDS
        )
        started = 0
        # One run per question, and one per message reacted to, which resolves that message's
        # reactions one after another in the order they came (a mark, then its removal):
        # resolved side by side, the removal could be counted first and the mark left.
        runs: dict[object, list[Callable[[], Coroutine[object, object, None]]]] = {}
        for item in found:
            if isinstance(item.key, EventKey) and deps.marks.holds(item.key.event_id):
                # Kept pending here: its claim is held again, and Slack not asked again.
                await asyncio.to_thread(deps.store.claim, item.key, deps.owner)
                continue
            resumed = _resumed(deps, client, item)
            if resumed is None:
                log.warning("cannot resume %s: its stored delivery is not readable", item.key)
                continue
            runs.setdefault(resumed[0], []).append(resumed[1])
            started += 1
        for group in runs.values():
            deps.in_flight.start(_one_by_one(group))
        return started


async def _one_by_one(runs: list[Callable[[], Coroutine[object, object, None]]]) -> None:
    for run in runs:
        await run()


def _resumed(
    deps: ListenerDeps, client: AsyncWebClient, item: Resumable
) -> tuple[object, Callable[[], Coroutine[object, object, None]]] | None:
    """What finishes `item`, and what it is for (its message reacted to, or its question): a
    question answered, or a reaction recorded before its ack resolved (bot/marks.py); None when
    its payload cannot be read."""
    if isinstance(item.key, EventKey):
        parsed = reaction_from_payload(item.payload)
        if parsed is None:
            return None
        reaction, bot_user_id, added = parsed
        log.info("resolving reaction event %s on %s/%s, left unfinished", reaction.event_id,
                 reaction.channel, reaction.ts)  # fmt: skip
        return key_of(reaction), partial(
            handle_reaction, deps, client, reaction, bot_user_id, added=added
        )
    turn = Turn.from_payload(item.payload)
    if turn is None:
        return None
    log.info("resuming event %s in %s, left unfinished", turn.event_id, turn.channel)
    return item.key, partial(handle_turn, deps, client, turn)
