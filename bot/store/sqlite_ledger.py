"""The event ledger's statements on SQLite: each function runs inside the caller's IMMEDIATE
transaction, so reading a claim and changing it is one atomic step across threads and processes.
"""

from __future__ import annotations

import sqlite3

from bot.store.contract import Claim, ClaimKey, EventKey

_DONE, _CLAIMED, _POSTING = "done", "claimed", "posting"


def _where(key: ClaimKey) -> tuple[str, str, tuple[str, ...]]:
    """The key's table, its WHERE clause and parameters."""
    if isinstance(key, EventKey):
        return "processed_events", "event_id = ?", (key.event_id,)
    return "processed_mentions", "team = ? AND channel = ? AND ts = ?", (
        key.team, key.channel, key.ts,
    )  # fmt: skip


def claim(conn: sqlite3.Connection, key: ClaimKey, owner: str, now: float, lease: float) -> Claim:
    table, where, params = _where(key)
    row = conn.execute(f"SELECT state, expires FROM {table} WHERE {where}", params).fetchone()
    if row is None:
        columns = "event_id" if isinstance(key, EventKey) else "team, channel, ts"
        marks = ", ".join("?" for _ in params)
        conn.execute(
            f"INSERT INTO {table} ({columns}, seen, state, owner, expires) "
            f"VALUES ({marks}, ?, ?, ?, ?)",
            (*params, now, _CLAIMED, owner, now + lease),
        )
        return Claim.NEW
    state, expires = row
    if state == _DONE:
        return Claim.DONE
    if expires is not None and expires > now:
        return Claim.BUSY
    conn.execute(
        f"UPDATE {table} SET owner = ?, expires = ? WHERE {where}", (owner, now + lease, *params)
    )
    return Claim.UNSURE if state == _POSTING else Claim.TAKEN_OVER


def renew(conn: sqlite3.Connection, key: ClaimKey, owner: str, now: float, lease: float) -> bool:
    table, where, params = _where(key)
    cursor = conn.execute(
        f"UPDATE {table} SET expires = ? WHERE {where} AND owner = ? AND state != ?",
        (now + lease, *params, owner, _DONE),
    )
    return cursor.rowcount == 1


def begin_post(
    conn: sqlite3.Connection, key: ClaimKey, owner: str, now: float, lease: float
) -> bool:
    table, where, params = _where(key)
    cursor = conn.execute(
        f"UPDATE {table} SET state = ?, expires = ? WHERE {where} AND owner = ? AND state != ?",
        (_POSTING, now + lease, *params, owner, _DONE),
    )
    return cursor.rowcount == 1


def finish(conn: sqlite3.Connection, key: ClaimKey, reply_ts: str | None) -> None:
    table, where, params = _where(key)
    conn.execute(
        f"UPDATE {table} SET state = ?, expires = NULL, reply_ts = COALESCE(?, reply_ts) "
        f"WHERE {where}",
        (_DONE, reply_ts, *params),
    )


def release(conn: sqlite3.Connection, key: ClaimKey, owner: str, now: float) -> None:
    table, where, params = _where(key)
    conn.execute(
        f"UPDATE {table} SET expires = ? WHERE {where} AND owner = ? AND state != ?",
        (now, *params, owner, _DONE),
    )


def prune(conn: sqlite3.Connection, cutoff: float) -> None:
    """Forget claims first seen before `cutoff`, finished or not: Slack retries no longer."""
    conn.execute("DELETE FROM processed_events WHERE seen < ?", (cutoff,))
    conn.execute("DELETE FROM processed_mentions WHERE seen < ?", (cutoff,))
