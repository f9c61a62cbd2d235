"""The reasons people give after a :x:, and the invitations to give one, on SQLite: each function
runs inside the caller's transaction (bot/store/sqlite.py).
"""

from __future__ import annotations

import sqlite3

# The thread index finds the thread's answers, the invitation's primary key the user's.
PENDING_REASON_SQL = (
    "SELECT a.id FROM answers a JOIN reason_invites i ON i.answer_id = a.id "
    "WHERE a.team = ? AND a.channel = ? AND a.thread_ts = ? AND i.user = ? AND i.invited >= ? "
    "ORDER BY i.invited DESC, a.id DESC LIMIT 1"
)
REASON_GIVEN_SQL = (
    "SELECT r.answer_id FROM reasons r JOIN answers a ON a.id = r.answer_id "
    "WHERE a.team = ? AND a.channel = ? AND a.thread_ts = ? AND r.user = ? AND r.text = ? "
    "AND r.source = 'thread' ORDER BY r.id DESC LIMIT 1"
)


def invite(conn: sqlite3.Connection, answer_id: int, user: str, now: float) -> None:
    conn.execute(
        "INSERT OR REPLACE INTO reason_invites (answer_id, user, invited) VALUES (?, ?, ?)",
        (answer_id, user, now),
    )


def pending(
    conn: sqlite3.Connection, team: str, channel: str, thread_ts: str, user: str, cutoff: float
) -> int | None:
    row = conn.execute(PENDING_REASON_SQL, (team, channel, thread_ts, user, cutoff)).fetchone()
    return None if row is None else int(row[0])


def given(
    conn: sqlite3.Connection, team: str, channel: str, thread_ts: str, user: str, text: str
) -> int | None:
    row = conn.execute(REASON_GIVEN_SQL, (team, channel, thread_ts, user, text)).fetchone()
    return None if row is None else int(row[0])
