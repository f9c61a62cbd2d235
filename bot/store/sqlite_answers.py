"""The answer log's writes on SQLite: a reply's answer saved once, or staged before its post and
marked posted after it. Each function runs inside the caller's IMMEDIATE transaction.
"""

from __future__ import annotations

import sqlite3

from bot.store.answer_sql import MARK_POSTED_SQL, answer_values, mark_posted_values, restaged
from bot.store.contract import AnswerRecord, StoreError

_INSERT = (
    "INSERT INTO answers (team, channel, thread_ts, reply_ts, question_ts, asker, question, "
    "status, generator, answer_json, created) VALUES (:team, :channel, :thread_ts, :reply_ts, "
    ":question_ts, :asker, :question, :status, :generator, :answer, :created)"
)
_STAGE = f"{_INSERT} {restaged('answer_json')}"


def save(conn: sqlite3.Connection, record: AnswerRecord, where: str) -> int:
    try:
        cursor = conn.execute(_INSERT, answer_values(record))
    except sqlite3.IntegrityError:
        raise StoreError(
            f"{where}: an answer for reply {record.reply_ts} in channel {record.channel} is "
            "already stored; each reply is saved once."
        ) from None
    assert cursor.lastrowid is not None  # an INSERT into a rowid table always sets it
    return cursor.lastrowid


def stage(conn: sqlite3.Connection, record: AnswerRecord) -> int:
    return int(conn.execute(_STAGE, answer_values(record)).fetchone()[0])


def mark_posted(
    conn: sqlite3.Connection, team: str, channel: str, question_ts: str, reply_ts: str
) -> bool:
    marked = mark_posted_values(team, channel, question_ts, reply_ts)
    return conn.execute(MARK_POSTED_SQL, marked).rowcount == 1
