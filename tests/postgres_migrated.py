"""A database on the session's PostgreSQL server with every store migration applied once, emptied
for each test that uses it (tests/conftest.py's `postgres_store_url`).

Opening a store on an empty database runs every migration step, each a transaction of DDL under
an advisory lock; emptying the tables of one migrated database gives a test the same start. The
emptying goes over one connection kept for the worker's session: a connection costs the server a
backend process started and ended (~30 ms of its CPU here), once per test otherwise.
"""

from __future__ import annotations

import asyncio

import asyncpg

# docbot_schema keeps the versions the migrations wrote, as a store opened on a fresh database
# finds them; every other table is emptied.
SCHEMA_TABLE = "docbot_schema"


class MigratedDatabase:
    """`url`, migrated once; `empty()` its tables (identities restarted) before each test."""

    def __init__(self, url: str) -> None:
        from bot.store import PostgresAnswerStore  # SQLAlchemy, only in a worker that needs it

        self.url = url
        PostgresAnswerStore(url).close()
        # Its own loop, run only between tests: a test's asyncio.run makes loops of its own.
        self._loop = asyncio.new_event_loop()
        self._conn: asyncpg.Connection = self._loop.run_until_complete(asyncpg.connect(url))
        # A connection left in a transaction by an earlier test would block TRUNCATE: fail, do
        # not hang.
        self._run("SET lock_timeout = '10s'")
        self._tables = ", ".join(f'"{t}"' for t in self._loop.run_until_complete(self._names()))
        filled = {t: n for t, n in self._loop.run_until_complete(self._counts()).items() if n}
        # Emptied tables are what the migrations made only while the migrations fill none.
        assert not filled, (
            f"a migration writes rows, so emptied tables are no fresh store: {filled}"
        )

    def empty(self) -> None:
        self._run(f"TRUNCATE {self._tables} RESTART IDENTITY CASCADE")

    def close(self) -> None:
        self._loop.run_until_complete(self._conn.close())
        self._loop.close()

    def _run(self, statement: str) -> None:
        self._loop.run_until_complete(self._conn.execute(statement))

    async def _names(self) -> list[str]:
        found = await self._conn.fetch(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename <> $1",
            SCHEMA_TABLE,
        )
        return [row["tablename"] for row in found]

    async def _counts(self) -> dict[str, int]:
        return {
            t: await self._conn.fetchval(f'SELECT count(*) FROM "{t}"') for t in await self._names()
        }
