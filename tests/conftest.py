"""Session-wide fixtures: one real PostgreSQL server for the whole run (tests/postgres_server.py).

`postgres_url` is a fresh, empty database on it for one test (its schema dropped and made again);
`postgres_server` is the server itself; `private_postgres` a server of one test's own, to stop and
start. Tests that ask for any of them skip, with the reason, when no
server can be started here (under .ci/run, where one must start, they fail instead).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator

import asyncpg
import pytest

from tests.postgres_server import (
    REQUIRED_ENV,
    PostgresServer,
    Unavailable,
    make_shared_dir,
    private_server,
    shared_server,
    stop_shared_server,
)


def pytest_configure(config: pytest.Config) -> None:
    if not hasattr(config, "workerinput"):  # the controller, or a run without xdist
        make_shared_dir()


def pytest_unconfigure(config: pytest.Config) -> None:
    if not hasattr(config, "workerinput"):
        stop_shared_server()


def _unavailable(exc: Unavailable) -> None:
    if os.environ.get(REQUIRED_ENV) == "required":
        pytest.fail(f"PostgreSQL is required here ({REQUIRED_ENV}=required): {exc}")
    pytest.skip(f"no PostgreSQL server can be started: {exc}")


@pytest.fixture(scope="session")
def postgres_server() -> PostgresServer:
    try:
        return shared_server()
    except Unavailable as exc:
        _unavailable(exc)
        raise


@pytest.fixture
def private_postgres() -> Iterator[PostgresServer]:
    """A server of this test's own, which it may `stop` and `start` again (same port): for
    outage tests, which must not stop the session's shared server under other workers."""
    try:
        server = private_server()
    except Unavailable as exc:
        _unavailable(exc)
        raise
    try:
        yield server
    finally:
        server.remove()


@pytest.fixture(scope="session")
def postgres_database(postgres_server: PostgresServer) -> str:
    """This worker's own database on the shared server, so workers never see each other."""
    return postgres_server.create_database(
        f"docbot_{os.environ.get('PYTEST_XDIST_WORKER', 'main')}"
    )


@pytest.fixture
def postgres_url(postgres_database: str) -> str:
    """The worker's database, emptied: a test starts on no tables at all."""

    async def reset() -> None:
        conn = await asyncpg.connect(postgres_database)
        try:
            await conn.execute("DROP SCHEMA public CASCADE")
            await conn.execute("CREATE SCHEMA public")
        finally:
            await conn.close()

    asyncio.run(reset())
    return postgres_database
