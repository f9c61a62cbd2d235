"""The store contract's event ledger: which deliveries are being answered and which are done,
as leases held by an owner (bot/store/contract.py joins it with the other seams in
`AnswerStore`; both backends implement it: sqlite_ledger.py, postgres_ledger.py)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Protocol


@dataclass(frozen=True, slots=True)
class EventKey:
    """A delivery by Slack's event id (reactions: one event, one change of feedback)."""

    event_id: str


@dataclass(frozen=True, slots=True)
class MentionKey:
    """A person's message, however often and under whichever event ids it is delivered."""

    team: str
    channel: str
    ts: str


ClaimKey = EventKey | MentionKey


class Claim(StrEnum):
    """What claiming a key found. The first three grant the claim to the caller."""

    NEW = "new"  # never seen: answer it
    TAKEN_OVER = "taken_over"  # its owner's lease lapsed before it began posting: answer it
    UNSURE = "unsure"  # its owner's lease lapsed after it began posting: was the reply posted?
    BUSY = "busy"  # a live owner holds it: a duplicate delivery, drop it
    DONE = "done"  # answered: final, never again

    @property
    def granted(self) -> bool:
        return self in (Claim.NEW, Claim.TAKEN_OVER, Claim.UNSURE)


@dataclass(frozen=True, slots=True)
class Resumable:
    """An unfinished claim with a payload whose lease lapsed: its owner died, or gave it up
    unfinished. A mention (the message, to answer it without Slack) or an event (a reaction
    recorded before its ack, bot/marks.py)."""

    key: ClaimKey
    payload: str  # what the claim recorded about the delivery, to handle it without Slack


def resumable_row(row: Sequence[Any]) -> Resumable:
    """A resumable claim read back: (team, channel, ts, event_id, payload), the mention's three
    columns NULL for an event's claim and the event id NULL for a mention's."""
    team, channel, ts, event_id, payload = row
    key: ClaimKey = EventKey(event_id) if event_id is not None else MentionKey(team, channel, ts)
    return Resumable(key, payload)


# The states of a ledger row (processed_mentions, processed_events), in both backends.
DONE, CLAIMED, POSTING = "done", "claimed", "posting"

# Both backends' statement listing resumable claims (EventLedger.resumable): mentions and events
# in one list, oldest first, ties in one order however the backend breaks them; named parameters
# since, unsure_since (a question whose run began posting), now, limit. Each row: seen, then
# resumable_row's five columns.
RESUMABLE_SQL = (
    "SELECT seen, team, channel, ts, NULL AS event_id, payload FROM processed_mentions "
    f"WHERE (seen >= :since OR (state = '{POSTING}' AND seen >= :unsure_since)) "
    f"AND state <> '{DONE}' AND payload IS NOT NULL AND expires <= :now "
    "UNION ALL SELECT seen, NULL, NULL, NULL, event_id, payload FROM processed_events "
    f"WHERE seen >= :since AND state <> '{DONE}' AND payload IS NOT NULL AND expires <= :now "
    "ORDER BY 1, 2, 3, 4, 5 LIMIT :limit"
)

# Both backends' statement marking an event done once, inside the transaction of the write it
# guards (a feedback press, a modal's reason): a row back the first time, none once done.
SETTLE_ONCE_SQL = (
    f"INSERT INTO processed_events (event_id, seen, state) VALUES (:event_id, :now, '{DONE}') "
    f"ON CONFLICT (event_id) DO UPDATE SET state = '{DONE}', expires = NULL "
    f"WHERE processed_events.state <> '{DONE}' RETURNING 1"
)


class EventLedger(Protocol):
    """Which deliveries are being answered and which are done, as leases held by an owner (one
    running process: pid plus a random token, so a restart under the same pid is another owner).

    Each operation is one atomic step against a shared database, so replicas can share it: in
    SQLite one IMMEDIATE transaction; in PostgreSQL `claim` is one transaction of `INSERT ... ON
    CONFLICT DO NOTHING` (a row back: NEW), else a conditional `UPDATE ... WHERE state <> 'done'
    AND expires <= :now` (a row back: TAKEN_OVER or UNSURE), else BUSY or DONE; the others are
    single conditional UPDATEs. The clock is the store's own (the caller's, in PostgreSQL: each
    replica's clock decides when a lease it reads has lapsed).
    """

    def claim(self, key: ClaimKey, owner: str, payload: str | None = None) -> Claim:
        """Take the key unless it is done or a live lease holds it (see `Claim`). The
        `payload` is kept with a new claim, so another process can resume it (a mention's
        message, or a reaction recorded before its ack)."""
        ...

    def resumable(
        self, window_seconds: float, limit: int, unsure_window_seconds: float | None = None
    ) -> tuple[Resumable, ...]:
        """Unfinished claims (mentions and events) first claimed within the last
        `window_seconds` whose lease has lapsed and that carry a payload, oldest first, at most
        `limit`; a question whose run had begun posting (claimed again: UNSURE), within the
        last `unsure_window_seconds` (the same window when None)."""
        ...

    def renew(self, key: ClaimKey, owner: str) -> bool:
        """Extend `owner`'s lease; False when it is not (or no longer) theirs."""
        ...

    def begin_post(self, key: ClaimKey, owner: str) -> bool:
        """Record the intent to post, if `owner` still holds the key; False means another owner
        took it over and this one must not post. After a crash past this point the next claim
        is `UNSURE`."""
        ...

    def finish(self, key: ClaimKey, reply_ts: str | None = None) -> None:
        """Mark the key done (whoever holds it: a posted reply is final)."""
        ...

    def release(self, key: ClaimKey, owner: str) -> None:
        """Give `owner`'s unfinished lease up now, so the next delivery may take it at once."""
        ...

    def defer(
        self, key: ClaimKey, owner: str, seconds: float, within_seconds: float,
        unsure_within_seconds: float | None = None,
    ) -> bool:  # fmt: skip
        """Hold `owner`'s unfinished claim for `seconds` from now, renewed no further: until then
        a claim finds it BUSY and `resumable` passes it by; then it lapses (TAKEN_OVER, or UNSURE
        if it was posting, as before). Only when it then lapses within `within_seconds` of its
        first claim (`unsure_within_seconds` for a claim that was posting; the same when None);
        False (nothing changed) when it would not, or when it is not `owner`'s."""
        ...
