"""Shared steps of the escalation store tests (test_escalation_*.py): several stores pressing at
once, and a PostgreSQL database left as an older docbot made it, before a schema step."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable, Sequence

import asyncpg

from bot.store import AnswerStore, postgres_schema


def rechecks_at_once(stores: Sequence[AnswerStore], answer_id: int) -> list[bool]:
    """Each store's `recheck_escalation(answer_id)`, all started together on their own threads
    (as presses in separate processes would be): whether each one took the claim."""
    barrier = threading.Barrier(len(stores))
    taken: list[bool] = []

    def recheck(store: AnswerStore) -> None:
        barrier.wait()
        taken.append(store.recheck_escalation(answer_id) is not None)

    threads = [threading.Thread(target=recheck, args=(store,)) for store in stores]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return taken


def postgres_before_step(
    url: str, step: str, fill: Callable[[asyncpg.Connection], Awaitable[None]]
) -> None:
    """The database at `url` made by every schema step before the one whose `why` is `step`
    (and its version recorded as an older docbot left it), then `fill`ed with that era's rows."""
    before = [each.why for each in postgres_schema.STEPS].index(step)

    async def old_database() -> None:
        conn = await asyncpg.connect(url)
        try:
            for each in postgres_schema.STEPS[:before]:
                for statement in each.statements:
                    await conn.execute(statement)
            await conn.execute("CREATE TABLE docbot_schema (version INTEGER NOT NULL)")
            await conn.execute(f"INSERT INTO docbot_schema (version) VALUES ({before})")
            await fill(conn)
        finally:
            await conn.close()

    asyncio.run(old_database())
