""" "Still need help?" claims on SQLite, one per question (team, channel, question_ts) whichever
stored copy of its answer is pressed. Each function runs inside the caller's IMMEDIATE
transaction, which makes it atomic across the processes sharing the file. `claimed_at` is the
store's clock when the claim was last taken; `confirmed` says the note is in Slack.
"""

from __future__ import annotations

import sqlite3

from bot.store.contract import AnswerRecord, answer_record

# The question of answer `?`: every copy of an answer shares it.
_QUESTION_OF = (
    "(team, channel, question_ts) IN (SELECT team, channel, question_ts FROM answers WHERE id = ?)"
)


def claim(conn: sqlite3.Connection, answer_id: int, user: str, at: str, now: float) -> bool:
    cursor = conn.execute(
        "INSERT OR IGNORE INTO question_escalations "
        "(team, channel, question_ts, answer_id, user, at, claimed_at) "
        "SELECT team, channel, question_ts, id, ?, ?, ? FROM answers WHERE id = ?",
        (user, at, now, answer_id),
    )
    return cursor.rowcount == 1


def confirm(conn: sqlite3.Connection, answer_id: int) -> None:
    conn.execute(
        f"UPDATE question_escalations SET confirmed = 1, unsure = 0 WHERE {_QUESTION_OF}",
        (answer_id,),
    )


def release(conn: sqlite3.Connection, answer_id: int) -> None:
    conn.execute(f"DELETE FROM question_escalations WHERE {_QUESTION_OF}", (answer_id,))


def doubt(conn: sqlite3.Connection, answer_id: int) -> None:
    conn.execute(f"UPDATE question_escalations SET unsure = 1 WHERE {_QUESTION_OF}", (answer_id,))


def recheck(
    conn: sqlite3.Connection, answer_id: int, now: float, lease: float, columns: str, where: str
) -> AnswerRecord | None:
    taken = conn.execute(
        "UPDATE question_escalations SET unsure = 0, claimed_at = ? "
        "WHERE (unsure = 1 OR (confirmed = 0 AND claimed_at <= ?)) "
        f"AND {_QUESTION_OF} RETURNING answer_id",
        (now, now - lease, answer_id),
    ).fetchone()
    if taken is None:
        return None
    row = conn.execute(f"SELECT {columns} FROM answers WHERE id = ?", (taken[0],)).fetchone()
    return answer_record(row, where)


def pending(conn: sqlite3.Connection, answer_id: int) -> bool:
    row = conn.execute(
        f"SELECT 1 FROM question_escalations WHERE confirmed = 0 AND {_QUESTION_OF}",
        (answer_id,),
    ).fetchone()
    return row is not None
