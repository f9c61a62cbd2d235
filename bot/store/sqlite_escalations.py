""" "Still need help?" claims on SQLite, one per question (team, channel, question_ts) whichever
stored copy of its answer is pressed. Each function runs inside the caller's IMMEDIATE
transaction, which makes it atomic across the processes sharing the file.
"""

from __future__ import annotations

import sqlite3

from bot.store.contract import AnswerRecord, answer_record

# The question of answer `?`: every copy of an answer shares it.
_QUESTION_OF = (
    "(team, channel, question_ts) IN (SELECT team, channel, question_ts FROM answers WHERE id = ?)"
)


def claim(conn: sqlite3.Connection, answer_id: int, user: str, at: str) -> bool:
    cursor = conn.execute(
        "INSERT OR IGNORE INTO question_escalations "
        "(team, channel, question_ts, answer_id, user, at) "
        "SELECT team, channel, question_ts, id, ?, ? FROM answers WHERE id = ?",
        (user, at, answer_id),
    )
    return cursor.rowcount == 1


def release(conn: sqlite3.Connection, answer_id: int) -> None:
    conn.execute(f"DELETE FROM question_escalations WHERE {_QUESTION_OF}", (answer_id,))


def doubt(conn: sqlite3.Connection, answer_id: int) -> None:
    conn.execute(f"UPDATE question_escalations SET unsure = 1 WHERE {_QUESTION_OF}", (answer_id,))


def recheck(
    conn: sqlite3.Connection, answer_id: int, columns: str, where: str
) -> AnswerRecord | None:
    taken = conn.execute(
        f"UPDATE question_escalations SET unsure = 0 WHERE unsure = 1 AND {_QUESTION_OF} "
        "RETURNING answer_id",
        (answer_id,),
    ).fetchone()
    if taken is None:
        return None
    row = conn.execute(f"SELECT {columns} FROM answers WHERE id = ?", (taken[0],)).fetchone()
    return answer_record(row, where)
