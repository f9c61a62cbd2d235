""" "Still need help?" claims on PostgreSQL, one per question (team, channel, question_ts)
whichever stored copy of its answer is pressed; SQLite's are sqlite_escalations.py. Each function
runs inside the caller's transaction. `claimed_at` is the replica's clock when the claim was
last taken; `confirmed` says the note is in Slack.
"""

from __future__ import annotations

from sqlalchemy import text as sql
from sqlalchemy.ext.asyncio import AsyncConnection

from bot.store.contract import AnswerRecord, answer_record
from bot.store.postgres_feedback import ANSWER_COLUMNS

# The question of answer `:id`: every copy of an answer shares it.
_QUESTION_OF = (
    "(team, channel, question_ts) IN "
    "(SELECT team, channel, question_ts FROM answers WHERE id = :id)"
)


async def claim(conn: AsyncConnection, answer_id: int, user: str, at: str, now: float) -> bool:
    row = await conn.execute(
        sql(
            "INSERT INTO question_escalations "
            "(team, channel, question_ts, answer_id, user_id, at, claimed_at) "
            "SELECT team, channel, question_ts, id, :user, :at, :now FROM answers "
            "WHERE id = :id ON CONFLICT DO NOTHING RETURNING 1"
        ),
        {"id": answer_id, "user": user, "at": at, "now": now},
    )
    return row.first() is not None


async def confirm(conn: AsyncConnection, answer_id: int) -> None:
    await conn.execute(
        sql(
            f"UPDATE question_escalations SET confirmed = TRUE, unsure = FALSE WHERE {_QUESTION_OF}"
        ),
        {"id": answer_id},
    )


async def release(conn: AsyncConnection, answer_id: int) -> None:
    await conn.execute(
        sql(f"DELETE FROM question_escalations WHERE {_QUESTION_OF}"), {"id": answer_id}
    )


async def doubt(conn: AsyncConnection, answer_id: int) -> None:
    await conn.execute(
        sql(f"UPDATE question_escalations SET unsure = TRUE WHERE {_QUESTION_OF}"),
        {"id": answer_id},
    )


async def recheck(
    conn: AsyncConnection, answer_id: int, now: float, lease: float, where: str
) -> AnswerRecord | None:
    """Taken by one caller: concurrent UPDATEs of the row wait on its lock, and the later one
    then re-reads it (READ COMMITTED), finds it held again from `now`, and leaves it."""
    taken = await conn.execute(
        sql(
            "UPDATE question_escalations SET unsure = FALSE, claimed_at = :now "
            "WHERE (unsure OR (NOT confirmed AND claimed_at <= :cutoff)) "
            f"AND {_QUESTION_OF} RETURNING answer_id"
        ),
        {"id": answer_id, "now": now, "cutoff": now - lease},
    )
    found = taken.first()
    if found is None:
        return None
    row = await conn.execute(
        sql(f"SELECT {', '.join(ANSWER_COLUMNS)} FROM answers WHERE id = :id"), {"id": found[0]}
    )
    return answer_record(row.one(), where)


async def pending(conn: AsyncConnection, answer_id: int) -> bool:
    row = await conn.execute(
        sql(f"SELECT 1 FROM question_escalations WHERE NOT confirmed AND {_QUESTION_OF}"),
        {"id": answer_id},
    )
    return row.first() is not None
