"""The worker's databases on the session's PostgreSQL server, reset between tests over one
connection kept for the session (tests/conftest.py's `postgres_url` and `postgres_store_url`).

A connection costs the server a backend process started and ended (~30 ms of its CPU here), so
the resets do not open one per test. `MigratedDatabase` has every store migration applied once:
opening a store on an empty database runs every step, each a transaction of DDL under an
advisory lock, and emptying the tables of one migrated database gives a test the same start.
"""

from __future__ import annotations

import asyncio
from typing import Any

import asyncpg

# docbot_schema keeps the versions the migrations wrote, as a store opened on a fresh database
# finds them; every other table is emptied.
SCHEMA_TABLE = "docbot_schema"


class KeptConnection:
    """One connection to `url` on a loop of its own, run only between tests (a test's
    asyncio.run makes loops of its own)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self._loop = asyncio.new_event_loop()
        self._conn: asyncpg.Connection = self._loop.run_until_complete(asyncpg.connect(url))
        # A connection left in a transaction by an earlier test would block a reset: fail, do
        # not hang.
        self.execute("SET lock_timeout = '10s'")

    def execute(self, statement: str) -> None:
        self._loop.run_until_complete(self._conn.execute(statement))

    def fetch(self, query: str, *args: Any) -> list[asyncpg.Record]:
        rows: list[asyncpg.Record] = self._loop.run_until_complete(self._conn.fetch(query, *args))
        return rows

    def close(self) -> None:
        self._loop.run_until_complete(self._conn.close())
        self._loop.close()


class EmptyDatabase(KeptConnection):
    """`url` with no tables at all before each test: its schema dropped and made again."""

    def reset(self) -> None:
        self.execute("DROP SCHEMA public CASCADE")
        self.execute("CREATE SCHEMA public")


class MigratedDatabase(KeptConnection):
    """`url`, migrated once; `reset()` empties its tables (identities restarted)."""

    def __init__(self, url: str) -> None:
        from bot.store import PostgresAnswerStore  # SQLAlchemy, only in a worker that needs it

        PostgresAnswerStore(url).close()
        super().__init__(url)
        names = [
            row["tablename"]
            for row in self.fetch(
                "SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename <> $1",
                SCHEMA_TABLE,
            )
        ]
        filled = [n for n in names if self.fetch(f'SELECT 1 FROM "{n}" LIMIT 1')]
        # Emptied tables are what the migrations made only while the migrations fill none.
        assert not filled, (
            f"a migration writes rows, so emptied tables are no fresh store: {filled}"
        )
        self._tables = ", ".join(f'"{n}"' for n in names)

    def reset(self) -> None:
        self.execute(f"TRUNCATE {self._tables} RESTART IDENTITY CASCADE")
