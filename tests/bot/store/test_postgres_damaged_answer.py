"""A damaged answer row on PostgreSQL is a StoreError that names the database and the row, on
every read path, the feedback export included."""

from __future__ import annotations

import asyncio

import asyncpg
import pytest

from bot.store import PostgresAnswerStore, StoreError
from tests.bot.store.conftest import record


def test_postgres_feedback_entries_name_the_database_of_a_damaged_answer(
    postgres_url: str,
) -> None:
    store = PostgresAnswerStore(postgres_url)
    try:
        answer_id = store.save_answer(record())
        store.add_feedback(answer_id, "U2", "wrong", "x", "2026-10-03T10:01:00+00:00")
        asyncio.run(_damage(postgres_url))
        for wrong_only in (False, True):
            with pytest.raises(StoreError) as info:
                store.feedback_entries(wrong_only)
            said = str(info.value)
            assert said.startswith(f"{store.where}, answer {answer_id}: ")
            assert "a stored answer cannot be read" in said
    finally:
        store.close()


async def _damage(url: str) -> None:
    conn = await asyncpg.connect(url)
    try:
        await conn.execute("""UPDATE answers SET answer = '{"status": "maybe"}'::jsonb""")
    finally:
        await conn.close()
