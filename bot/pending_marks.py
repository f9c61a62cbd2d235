"""Reactions on a message of docbot's whose answer the store does not hold yet, kept until it does.

Two moments leave a reaction with no answer to count for, though the message is docbot's reply:
a streamed reply still being written (its run stores the answer just before the stream's end),
and a reply Slack could not be asked about (conversations.replies failed after its retries, as it
does under Slack's tighter history limit). Such a reaction is kept here, per message and in the
order Slack sent them, and counted once the store knows the message's answer: at once when this
process's run stores it (bot/questions.py), else on the next sweep (bot/resume.py), until
PENDING_SECONDS have passed (then it is dropped, logged). Kept in memory; the event's claim in
the ledger keeps the reaction too (bot/marks.py), so what a process that dies kept pending is
resolved by another's sweep once that claim lapses.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass

from slack_sdk.web.async_client import AsyncWebClient

from bot.events import Reaction
from bot.leases import RESUME_WINDOW_SECONDS

# As long as a question is resumed: a stream is finished, or a reply marked, by then or never.
PENDING_SECONDS = RESUME_WINDOW_SECONDS


@dataclass(frozen=True, slots=True)
class MessageKey:
    team: str
    channel: str
    ts: str


@dataclass(frozen=True, slots=True)
class PendingMark:
    """One reaction event kept: what to count (`kind` of `reaction`, or its removal) and what
    counting it needs (the client of the workspace, docbot's user id), and since when."""

    reaction: Reaction
    kind: str
    added: bool
    client: AsyncWebClient
    bot_user_id: str | None
    since: float  # on the process's monotonic clock


@dataclass
class Kept:
    """The marks kept for one message, oldest first; `known`: Slack showed the message is
    docbot's (a stream being written), so the store alone decides now; `read_after`: Slack is
    not asked about it again before then (its Retry-After), on the monotonic clock."""

    marks: list[PendingMark]
    known: bool = False
    read_after: float = 0.0


class PendingMarks:
    """The reactions kept, per message; one resolution of a message at a time (`resolving`)."""

    def __init__(self) -> None:
        self._waiting: dict[MessageKey, Kept] = {}
        self._taken: dict[MessageKey, Kept] = {}  # being counted now (take, until put back)
        self._locks: dict[MessageKey, asyncio.Lock] = {}
        self._users: dict[MessageKey, int] = {}  # runs holding or awaiting each lock

    def keep(self, mark: PendingMark, *, known: bool, read_after: float = 0.0) -> MessageKey:
        """Keep `mark` after those kept for its message (see Kept)."""
        key = key_of(mark.reaction)
        kept = self._waiting.setdefault(key, Kept([]))
        if any(m.reaction.event_id == mark.reaction.event_id for m in kept.marks):
            return key  # Slack's redelivery of an event kept already
        kept.marks.append(mark)
        kept.known = kept.known or known
        kept.read_after = max(kept.read_after, read_after)
        return key

    def put_back(self, key: MessageKey, kept: Kept) -> None:
        """Marks taken and not counted yet go back before any kept meanwhile, in order."""
        if not kept.marks:
            return
        later = self._waiting.pop(key, None)
        if later is not None:
            kept.marks += [m for m in later.marks if m not in kept.marks]
            kept.known = kept.known or later.known
            kept.read_after = max(kept.read_after, later.read_after)
        self._waiting[key] = kept
        self._taken.pop(key, None)

    def take(self, key: MessageKey) -> Kept:
        """The marks kept for `key`, removed (none: an empty Kept); held as being counted until
        put back or their resolution ends."""
        kept = self._waiting.pop(key, None) or Kept([])
        if kept.marks:
            self._taken[key] = kept
        return kept

    def has(self, key: MessageKey) -> bool:
        return key in self._waiting

    def waiting(self, key: MessageKey) -> bool:
        """Whether reactions on `key` are kept or being counted: a new one goes behind them."""
        return self.has(key) or self.busy(key)

    def holds(self, event_id: str) -> bool:
        """Whether the reaction event `event_id` is kept here (its claim is this process's)."""
        return event_id in self.event_ids()

    def event_ids(self) -> list[str]:
        """The reaction events kept here or being counted, whose claims this process holds."""
        held = (*self._waiting.values(), *self._taken.values())
        return [m.reaction.event_id for kept in held for m in kept.marks]

    def messages(self) -> list[MessageKey]:
        return list(self._waiting)

    def count(self) -> int:
        return sum(len(w.marks) for w in self._waiting.values())

    def busy(self, key: MessageKey) -> bool:
        """Whether a run is counting (or waits to count) `key`'s marks now."""
        return self._users.get(key, 0) > 0

    @contextlib.asynccontextmanager
    async def resolving(self, key: MessageKey) -> AsyncIterator[None]:
        """Held while `key`'s marks are being counted, so no two runs count them at once."""
        lock = self._locks.setdefault(key, asyncio.Lock())
        self._users[key] = self._users.get(key, 0) + 1
        try:
            async with lock:
                yield
        finally:
            self._users[key] -= 1
            self._taken.pop(key, None)
            if not self._users[key]:
                del self._users[key], self._locks[key]


def key_of(reaction: Reaction) -> MessageKey:
    return MessageKey(reaction.team, reaction.channel, reaction.ts)
