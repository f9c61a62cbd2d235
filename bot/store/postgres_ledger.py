"""The event ledger's statements on PostgreSQL: each function runs inside the caller's
transaction, and each step that grants or changes a claim is one statement whose condition the
server checks on the row it locks, so two replicas racing on one key cannot both win it.
"""

from __future__ import annotations

import logging
from typing import Any

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection

from bot.store.event_ledger import (
    CLAIMED,
    DONE,
    POSTING,
    RESUMABLE_SQL,
    SETTLE_ONCE_SQL,
    Claim,
    ClaimKey,
    EventKey,
    Resumable,
    resumable_row,
)

log = logging.getLogger("docbot.store")

# Clocks kept by NTP differ by milliseconds; a second is beyond any such drift.
CLOCK_SLACK_SECONDS = 1.0


def _where(key: ClaimKey) -> tuple[str, str, dict[str, Any]]:
    """The key's table, its WHERE clause and parameters."""
    if isinstance(key, EventKey):
        return "processed_events", "event_id = :event_id", {"event_id": key.event_id}
    return (
        "processed_mentions",
        "team = :team AND channel = :channel AND ts = :ts",
        {"team": key.team, "channel": key.channel, "ts": key.ts},
    )


async def claim(
    conn: AsyncConnection, key: ClaimKey, owner: str, now: float, lease: float,
    payload: str | None,
) -> Claim:  # fmt: skip
    table, where, params = _where(key)
    values = {**params, "now": now, "owner": owner, "expires": now + lease, "payload": payload}
    if isinstance(key, EventKey):
        insert = (
            "INSERT INTO processed_events (event_id, seen, state, owner, expires, payload) "
            f"VALUES (:event_id, :now, '{CLAIMED}', :owner, :expires, :payload) "
            "ON CONFLICT DO NOTHING RETURNING 1"
        )
    else:
        insert = (
            "INSERT INTO processed_mentions (team, channel, ts, seen, state, owner, expires, "
            f"payload) VALUES (:team, :channel, :ts, :now, '{CLAIMED}', :owner, :expires, "
            ":payload) ON CONFLICT DO NOTHING RETURNING 1"
        )
    if (await conn.execute(text(insert), values)).first() is not None:
        return Claim.NEW
    values.pop("payload", None)
    # Under READ COMMITTED a racing takeover re-checks this WHERE on the row the winner wrote,
    # so only one replica takes a lapsed lease.
    taken = (
        await conn.execute(
            text(
                f"UPDATE {table} SET owner = :owner, expires = :expires WHERE {where} "
                f"AND state <> '{DONE}' AND expires <= :now RETURNING state"
            ),
            values,
        )
    ).first()
    if taken is not None:
        return Claim.UNSURE if taken[0] == POSTING else Claim.TAKEN_OVER
    row = (
        await conn.execute(text(f"SELECT state, expires FROM {table} WHERE {where}"), params)
    ).first()
    if row is None or row[0] == DONE:
        return Claim.DONE
    _check_clock(key, row[1], now, lease)
    return Claim.BUSY


def _check_clock(key: ClaimKey, expires: float | None, now: float, lease: float) -> None:
    """Warn when a lease runs out later than a whole lease from now by this replica's clock: the
    replica that wrote it has a clock ahead of this one's (each reads leases by its own)."""
    ahead = (expires or now) - now - lease
    if ahead > CLOCK_SLACK_SECONDS:
        log.warning(
            "the claim on %s was written by a replica whose clock is about %.0f s ahead of this "
            "one's: replicas sharing a store must keep their clocks within half a lease (%.0f s) "
            "of each other, or one takes over another's live work (check NTP)",
            key, ahead, lease / 2,
        )  # fmt: skip


async def renew(conn: AsyncConnection, key: ClaimKey, owner: str, expires: float) -> bool:
    return await _update_held(conn, key, owner, "expires = :expires", {"expires": expires})


async def begin_post(conn: AsyncConnection, key: ClaimKey, owner: str, expires: float) -> bool:
    return await _update_held(
        conn, key, owner, f"state = '{POSTING}', expires = :expires", {"expires": expires}
    )


async def finish(conn: AsyncConnection, key: ClaimKey, reply_ts: str | None) -> None:
    table, where, params = _where(key)
    await conn.execute(
        text(
            f"UPDATE {table} SET state = '{DONE}', expires = NULL, "
            f"reply_ts = COALESCE(CAST(:reply_ts AS TEXT), reply_ts) WHERE {where}"
        ),
        {**params, "reply_ts": reply_ts},
    )


async def release(conn: AsyncConnection, key: ClaimKey, owner: str, now: float) -> None:
    await _update_held(conn, key, owner, "expires = :now", {"now": now})


async def defer(
    conn: AsyncConnection, key: ClaimKey, owner: str, until: float, within: float,
    unsure_within: float,
) -> bool:  # fmt: skip
    # The window is checked on the row the update locks, as every held-claim change is.
    table, where, params = _where(key)
    row = await conn.execute(
        text(
            f"UPDATE {table} SET expires = :until WHERE {where} AND owner = :owner "
            f"AND state <> '{DONE}' AND seen + (CASE WHEN state = '{POSTING}' "
            "THEN CAST(:unsure_within AS DOUBLE PRECISION) "
            "ELSE CAST(:within AS DOUBLE PRECISION) END) >= :until RETURNING 1"
        ),
        {
            **params,
            "until": until,
            "owner": owner,
            "within": within,
            "unsure_within": unsure_within,
        },
    )
    return row.first() is not None


async def _update_held(
    conn: AsyncConnection, key: ClaimKey, owner: str, assignments: str, values: dict[str, Any]
) -> bool:
    """SET `assignments` on the key's row if `owner` still holds its unfinished claim; whether
    it did."""
    table, where, params = _where(key)
    row = await conn.execute(
        text(
            f"UPDATE {table} SET {assignments} WHERE {where} AND owner = :owner "
            f"AND state <> '{DONE}' RETURNING 1"
        ),
        {**params, **values, "owner": owner},
    )
    return row.first() is not None


async def resumable(
    conn: AsyncConnection, now: float, window: float, limit: int, unsure_window: float
) -> tuple[Resumable, ...]:
    since = {"since": now - window, "unsure_since": now - unsure_window}
    rows = await conn.execute(text(RESUMABLE_SQL), {**since, "now": now, "limit": limit})
    return tuple(resumable_row(row[1:]) for row in rows)


async def settle_once(conn: AsyncConnection, key: EventKey, now: float) -> bool:
    """Mark `key` done in the caller's transaction; False when it was done already."""
    row = await conn.execute(text(SETTLE_ONCE_SQL), {"event_id": key.event_id, "now": now})
    return row.first() is not None


async def prune(conn: AsyncConnection, cutoff: float) -> None:
    """Forget claims first seen before `cutoff`, finished or not: Slack retries no longer."""
    await conn.execute(
        text("DELETE FROM processed_events WHERE seen < :cutoff"), {"cutoff": cutoff}
    )
    await conn.execute(
        text("DELETE FROM processed_mentions WHERE seen < :cutoff"), {"cutoff": cutoff}
    )
