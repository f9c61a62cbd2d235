"""The event ledger's statements on SQLite: each function runs inside the caller's IMMEDIATE
transaction, so reading a claim and changing it is one atomic step across threads and processes.
"""

from __future__ import annotations

import sqlite3

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


def _where(key: ClaimKey) -> tuple[str, str, tuple[str, ...]]:
    """The key's table, its WHERE clause and parameters."""
    if isinstance(key, EventKey):
        return "processed_events", "event_id = ?", (key.event_id,)
    return "processed_mentions", "team = ? AND channel = ? AND ts = ?", (
        key.team, key.channel, key.ts,
    )  # fmt: skip


def claim(
    conn: sqlite3.Connection, key: ClaimKey, owner: str, now: float, lease: float,
    payload: str | None,
) -> Claim:  # fmt: skip
    table, where, params = _where(key)
    row = conn.execute(f"SELECT state, expires FROM {table} WHERE {where}", params).fetchone()
    if row is None:
        if isinstance(key, EventKey):
            conn.execute(
                "INSERT INTO processed_events (event_id, seen, state, owner, expires, payload) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (key.event_id, now, CLAIMED, owner, now + lease, payload),
            )
        else:
            conn.execute(
                "INSERT INTO processed_mentions (team, channel, ts, seen, state, owner, expires, "
                "payload) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (*params, now, CLAIMED, owner, now + lease, payload),
            )
        return Claim.NEW
    state, expires = row
    if state == DONE:
        return Claim.DONE
    if expires is not None and expires > now:
        return Claim.BUSY
    conn.execute(
        f"UPDATE {table} SET owner = ?, expires = ? WHERE {where}", (owner, now + lease, *params)
    )
    return Claim.UNSURE if state == POSTING else Claim.TAKEN_OVER


def renew(conn: sqlite3.Connection, key: ClaimKey, owner: str, now: float, lease: float) -> bool:
    table, where, params = _where(key)
    cursor = conn.execute(
        f"UPDATE {table} SET expires = ? WHERE {where} AND owner = ? AND state != ?",
        (now + lease, *params, owner, DONE),
    )
    return cursor.rowcount == 1


def begin_post(
    conn: sqlite3.Connection, key: ClaimKey, owner: str, now: float, lease: float
) -> bool:
    table, where, params = _where(key)
    cursor = conn.execute(
        f"UPDATE {table} SET state = ?, expires = ? WHERE {where} AND owner = ? AND state != ?",
        (POSTING, now + lease, *params, owner, DONE),
    )
    return cursor.rowcount == 1


def finish(conn: sqlite3.Connection, key: ClaimKey, reply_ts: str | None) -> None:
    table, where, params = _where(key)
    conn.execute(
        f"UPDATE {table} SET state = ?, expires = NULL, reply_ts = COALESCE(?, reply_ts) "
        f"WHERE {where}",
        (DONE, reply_ts, *params),
    )


def release(conn: sqlite3.Connection, key: ClaimKey, owner: str, now: float) -> None:
    table, where, params = _where(key)
    conn.execute(
        f"UPDATE {table} SET expires = ? WHERE {where} AND owner = ? AND state != ?",
        (now, *params, owner, DONE),
    )


def defer(
    conn: sqlite3.Connection, key: ClaimKey, owner: str, until: float, within: float,
    unsure_within: float,
) -> bool:  # fmt: skip
    table, where, params = _where(key)
    cursor = conn.execute(
        f"UPDATE {table} SET expires = ? WHERE {where} AND owner = ? AND state != ? "
        "AND seen + (CASE WHEN state = ? THEN ? ELSE ? END) >= ?",
        (until, *params, owner, DONE, POSTING, unsure_within, within, until),
    )
    return cursor.rowcount == 1


def resumable(
    conn: sqlite3.Connection, now: float, window: float, limit: int, unsure_window: float
) -> tuple[Resumable, ...]:
    since = {"since": now - window, "unsure_since": now - unsure_window}
    rows = conn.execute(RESUMABLE_SQL, {**since, "now": now, "limit": limit}).fetchall()
    return tuple(resumable_row(row[1:]) for row in rows)


def settle_once(conn: sqlite3.Connection, key: EventKey, now: float) -> bool:
    """Mark `key` done in the caller's transaction; False when it was done already."""
    return (
        conn.execute(SETTLE_ONCE_SQL, {"event_id": key.event_id, "now": now}).fetchone() is not None
    )


def prune(conn: sqlite3.Connection, cutoff: float) -> None:
    """Forget claims first seen before `cutoff`, finished or not: Slack retries no longer."""
    conn.execute("DELETE FROM processed_events WHERE seen < ?", (cutoff,))
    conn.execute("DELETE FROM processed_mentions WHERE seen < ?", (cutoff,))
