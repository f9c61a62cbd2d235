"""The feedback log's statements on PostgreSQL: marks (reactions and the feedback buttons), the
reasons people give, and the invitations to give one. Each function runs inside the caller's
transaction; `where` names the database in errors.
"""

from __future__ import annotations

from sqlalchemy import text as sql
from sqlalchemy.ext.asyncio import AsyncConnection

from bot.store.contract import (
    BUTTON_MARK,
    FeedbackEntry,
    StoreError,
    answer_record,
    check_reason,
    group_reasons,
)
from bot.store.reaction_order import LATEST_SQL, latest_params

ANSWER_COLUMNS = (
    "id", "team", "channel", "thread_ts", "reply_ts", "question_ts", "asker", "question",
    "answer::text", "created",
)  # fmt: skip


async def require_answer(conn: AsyncConnection, answer_id: int, where: str) -> None:
    found = await conn.execute(sql("SELECT 1 FROM answers WHERE id = :id"), {"id": answer_id})
    if found.first() is None:
        raise StoreError(f"{where}: no answer with id {answer_id} is stored.")


async def add_mark(
    conn: AsyncConnection, answer_id: int, user: str, kind: str, emoji: str, at: str
) -> bool:
    row = await conn.execute(
        sql(
            "INSERT INTO feedback (answer_id, user_id, kind, emoji, at, source) VALUES "
            "(:id, :user, :kind, :emoji, :at, 'reaction') ON CONFLICT DO NOTHING RETURNING 1"
        ),
        {"id": answer_id, "user": user, "kind": kind, "emoji": emoji, "at": at},
    )
    return row.first() is not None


async def latest(
    conn: AsyncConnection, answer_id: int, user: str, emoji: str, event_ts: str, now: float
) -> bool:
    """Whether the reaction event at `event_ts` is its reaction's latest (recorded now as such);
    an event without a time is not ordered, so True."""
    values = latest_params(answer_id, user, emoji, event_ts, now)
    return values is None or (await conn.execute(sql(LATEST_SQL), values)).first() is not None


async def has_mark(conn: AsyncConnection, answer_id: int, user: str, emoji: str) -> bool:
    row = await conn.execute(
        sql("SELECT 1 FROM feedback WHERE answer_id = :id AND user_id = :user AND emoji = :emoji"),
        {"id": answer_id, "user": user, "emoji": emoji},
    )
    return row.first() is not None


async def remove_mark(conn: AsyncConnection, answer_id: int, user: str, emoji: str) -> bool:
    row = await conn.execute(
        sql(
            "DELETE FROM feedback WHERE answer_id = :id AND user_id = :user AND emoji = :emoji "
            "RETURNING 1"
        ),
        {"id": answer_id, "user": user, "emoji": emoji},
    )
    await withdraw_invitation(conn, answer_id, user)
    return row.first() is not None


async def button_mark(conn: AsyncConnection, answer_id: int, user: str) -> str | None:
    """The user's button mark on the answer, if any."""
    row = await conn.execute(
        sql(
            "SELECT kind FROM feedback WHERE answer_id = :id AND user_id = :user AND emoji = :emoji"
        ),
        {"id": answer_id, "user": user, "emoji": BUTTON_MARK},
    )
    return row.scalar()


async def toggle_mark(
    conn: AsyncConnection, answer_id: int, user: str, kind: str, at: str
) -> str | None:
    """The user's one button mark becomes `kind`, or is taken back when it was `kind`."""
    key = {"id": answer_id, "user": user, "emoji": BUTTON_MARK}
    # FOR UPDATE: two presses of one person at once are applied one after the other.
    current = (
        await conn.execute(
            sql(
                "SELECT kind FROM feedback WHERE answer_id = :id AND user_id = :user "
                "AND emoji = :emoji FOR UPDATE"
            ),
            key,
        )
    ).scalar()
    if current == kind:
        await remove_mark(conn, answer_id, user, BUTTON_MARK)
        return None
    await conn.execute(
        sql(
            "INSERT INTO feedback (answer_id, user_id, emoji, kind, at, source) VALUES "
            "(:id, :user, :emoji, :kind, :at, 'button') ON CONFLICT (answer_id, user_id, emoji) "
            "DO UPDATE SET kind = EXCLUDED.kind, at = EXCLUDED.at, source = EXCLUDED.source"
        ),
        {**key, "kind": kind, "at": at},
    )
    if kind != "wrong":
        await withdraw_invitation(conn, answer_id, user)
    return kind


async def add_reason(
    conn: AsyncConnection, answer_id: int, user: str, text: str, at: str, source: str,
    category: str | None,
) -> None:  # fmt: skip
    check_reason(source, category)
    values = {"id": answer_id, "user": user, "text": text, "at": at, "source": source,
              "category": category}  # fmt: skip
    await conn.execute(
        sql(
            "INSERT INTO reasons (answer_id, user_id, text, at, source, category) "
            "VALUES (:id, :user, :text, :at, :source, CAST(:category AS TEXT))"
        ),
        values,
    )
    await conn.execute(
        sql("DELETE FROM reason_invites WHERE answer_id = :id AND user_id = :user"), values
    )


async def invite(conn: AsyncConnection, answer_id: int, user: str, now: float) -> None:
    await conn.execute(
        sql(
            "INSERT INTO reason_invites (answer_id, user_id, invited) VALUES (:id, :user, :now) "
            "ON CONFLICT (answer_id, user_id) DO UPDATE SET invited = EXCLUDED.invited"
        ),
        {"id": answer_id, "user": user, "now": now},
    )


async def withdraw_invitation(conn: AsyncConnection, answer_id: int, user: str) -> None:
    """Once `user` has no wrong-mark left on the answer, their next thread reply is a question
    again, not a reason."""
    await conn.execute(
        sql(
            "DELETE FROM reason_invites WHERE answer_id = :id AND user_id = :user "
            "AND NOT EXISTS (SELECT 1 FROM feedback WHERE answer_id = :id "
            "AND user_id = :user AND kind = 'wrong')"
        ),
        {"id": answer_id, "user": user},
    )


async def entries(conn: AsyncConnection, wrong_only: bool, where: str) -> tuple[FeedbackEntry, ...]:
    """Every mark joined with its answer and the reasons of its author, oldest first."""
    only = "WHERE f.kind = 'wrong'" if wrong_only else ""
    columns = ", ".join(f"a.{column}" for column in ANSWER_COLUMNS)
    rows = await conn.execute(
        sql(
            f"SELECT f.kind, f.emoji, f.user_id, f.at, f.source, {columns} FROM feedback f "
            f"JOIN answers a ON a.id = f.answer_id {only} ORDER BY f.at, a.id, f.user_id"
        )
    )
    reasons = group_reasons(
        await conn.execute(
            sql(
                "SELECT answer_id, user_id, text, at, source, category FROM reasons ORDER BY at, id"
            )
        )
    )
    return tuple(
        FeedbackEntry(
            answer_id=row[5], kind=row[0], emoji=row[1], user=row[2], at=row[3],
            record=answer_record(tuple(row[5:]), where), reasons=reasons.get((row[5], row[2]), ()),
            source=row[4],
        )
        for row in rows
    )  # fmt: skip
