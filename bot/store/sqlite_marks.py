"""The marks on SQLite: reactions (in their events' order, reaction_order.py) and the one button
mark per person and answer. Each function runs inside the caller's transaction
(bot/store/sqlite.py)."""

from __future__ import annotations

import sqlite3

from bot.store.contract import BUTTON_MARK
from bot.store.reaction_order import LATEST_SQL, latest_params


def latest(
    conn: sqlite3.Connection, answer_id: int, user: str, emoji: str, event_ts: str, now: float
) -> bool:
    """Whether the reaction event at `event_ts` is its reaction's latest (recorded now as such);
    an event without a time is not ordered, so True."""
    values = latest_params(answer_id, user, emoji, event_ts, now)
    return values is None or conn.execute(LATEST_SQL, values).fetchone() is not None


def add(
    conn: sqlite3.Connection, answer_id: int, user: str, kind: str, emoji: str, at: str
) -> bool:
    cursor = conn.execute(
        "INSERT OR IGNORE INTO feedback (answer_id, user, kind, emoji, at) VALUES (?, ?, ?, ?, ?)",
        (answer_id, user, kind, emoji, at),
    )
    return cursor.rowcount == 1


def remove(conn: sqlite3.Connection, answer_id: int, user: str, emoji: str) -> bool:
    cursor = conn.execute(
        "DELETE FROM feedback WHERE answer_id = ? AND user = ? AND emoji = ?",
        (answer_id, user, emoji),
    )
    withdraw_invitation(conn, answer_id, user)
    return cursor.rowcount == 1


def has(conn: sqlite3.Connection, answer_id: int, user: str, emoji: str) -> bool:
    row = conn.execute(
        "SELECT 1 FROM feedback WHERE answer_id = ? AND user = ? AND emoji = ?",
        (answer_id, user, emoji),
    ).fetchone()
    return row is not None


def toggle(conn: sqlite3.Connection, answer_id: int, user: str, kind: str, at: str) -> str | None:
    """The user's one button mark becomes `kind`, or is taken back when it was `kind`."""
    current = button_mark(conn, answer_id, user)
    if current == kind:
        remove(conn, answer_id, user, BUTTON_MARK)
        return None
    conn.execute(
        "INSERT OR REPLACE INTO feedback (answer_id, user, emoji, kind, at, source) "
        "VALUES (?, ?, ?, ?, ?, 'button')",
        (answer_id, user, BUTTON_MARK, kind, at),
    )
    if kind != "wrong":
        withdraw_invitation(conn, answer_id, user)
    return kind


def button_mark(conn: sqlite3.Connection, answer_id: int, user: str) -> str | None:
    row = conn.execute(
        "SELECT kind FROM feedback WHERE answer_id = ? AND user = ? AND emoji = ?",
        (answer_id, user, BUTTON_MARK),
    ).fetchone()
    return None if row is None else str(row[0])


def withdraw_invitation(conn: sqlite3.Connection, answer_id: int, user: str) -> None:
    """Once `user` has no wrong-mark left on the answer, their next thread reply is a question
    again, not a reason."""
    conn.execute(
        "DELETE FROM reason_invites WHERE answer_id = ? AND user = ? AND NOT EXISTS ("
        "SELECT 1 FROM feedback WHERE answer_id = ? AND user = ? AND kind = 'wrong')",
        (answer_id, user, answer_id, user),
    )
