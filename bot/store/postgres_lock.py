"""One `docbot index` at a time across machines: a PostgreSQL session advisory lock, held on a
connection of its own for as long as the build and publish take.

A lock file in the published folder (retrieval/artifact.py) already serialises builders on one
host; builders on several hosts that share the store's database also take this lock, since file
locks on a network share are not to be trusted.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import asyncpg

from bot.store.contract import StoreError
from bot.store.postgres_engine import database_url, shown
from bot.store.postgres_schema import MIGRATION_LOCK

# Another fixed key than the migrations' ("docbots"): "docbuil" in ASCII.
BUILD_LOCK = 0x646F636275696C
CONNECT_SECONDS = 10.0

assert BUILD_LOCK != MIGRATION_LOCK


@contextmanager
def build_lock(url: str, waiting: Callable[[str], None] | None = None) -> Iterator[None]:
    """Hold the builders' advisory lock in the database at `url` until the block ends; a
    second holder waits (told through `waiting`). StoreError when the server cannot be asked."""
    where = shown(database_url(url))
    loop = asyncio.new_event_loop()
    try:
        conn = loop.run_until_complete(_locked(url, where, waiting))
        try:
            yield
        finally:
            # Closing the session releases its advisory locks too; unlock first to say so.
            loop.run_until_complete(_release(conn))
    finally:
        loop.close()


async def _locked(
    url: str, where: str, waiting: Callable[[str], None] | None
) -> asyncpg.Connection:
    try:
        conn = await asyncpg.connect(url, timeout=CONNECT_SECONDS)
    except (OSError, TimeoutError, asyncpg.PostgresError) as exc:
        raise StoreError(
            f"cannot take the index builders' lock in {where} ({type(exc).__name__}: {exc}): "
            "check DOCBOT_DATABASE_URL, or that the server is up"
        ) from exc
    try:
        if not await conn.fetchval("SELECT pg_try_advisory_lock($1)", BUILD_LOCK):
            if waiting is not None:
                waiting(f"waiting for another docbot index, which holds the lock in {where}")
            await conn.execute("SELECT pg_advisory_lock($1)", BUILD_LOCK)
    except BaseException:
        await conn.close()
        raise
    return conn


async def _release(conn: asyncpg.Connection) -> None:
    try:
        await conn.execute("SELECT pg_advisory_unlock($1)", BUILD_LOCK)
    except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError):
        pass  # the session is gone, and its lock with it
    finally:
        await conn.close()
