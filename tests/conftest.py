"""Session-wide fixtures: one real PostgreSQL server for the whole run (tests/postgres_server.py).

`postgres_url` is a fresh, empty database on it for one test (its schema dropped and made again),
for tests of how the store's schema is made; `postgres_store_url` a database every migration was
applied to once per worker, its tables emptied for each test, for tests of what the store does;
`postgres_server` is the server itself; `private_postgres` a server of one test's own, to stop and
start. Tests that ask for any of them skip, with the reason, when no
server can be started here (under .ci/run, where one must start, they fail instead).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.postgres_migrated import EmptyDatabase, MigratedDatabase
from tests.postgres_server import (
    REQUIRED_ENV,
    PostgresServer,
    Unavailable,
    make_shared_dir,
    private_server,
    shared_server,
    stop_shared_server,
)

# Linux's memory-backed folder: the tests' tmp_path folders go there (see _temp_in_memory).
MEMORY_FOLDER = Path("/dev/shm")
# One run writes ~160 MB there; a container's /dev/shm is often 64 MB, so a folder with less than
# this free is passed over and the tests write to the disk as before (slower, never failing).
MEMORY_ROOM_NEEDED = 2 * 1024**3


def pytest_configure(config: pytest.Config) -> None:
    # Compiled modules are written (pytest's assertion-rewritten test modules too) even where
    # PYTHONDONTWRITEBYTECODE is set, as this machine sets it: otherwise each xdist worker,
    # each `docbot` subprocess and each later run compiles every module again (~5 s of a
    # worker's ~10 s collection). They go in the usual, git-ignored __pycache__ folders, and
    # Python and pytest check each against its source file before using it.
    sys.dont_write_bytecode = False
    if not hasattr(config, "workerinput"):  # the controller, or a run without xdist
        _temp_in_memory(config)
        make_shared_dir()


def _temp_in_memory(config: pytest.Config) -> None:
    """pytest's temporary folders (numbered and kept as usual) in memory when this machine has
    a writable /dev/shm and nobody said where they go (--basetemp, TMPDIR): every index, store
    and git write the tests make is fsynced by the code under test (retrieval/durable.py,
    SQLite), thousands per run at ~2-6 ms each on this VM's disk, and an fsync on tmpfs returns
    at once. The code runs the same; only the disk's wait is gone. The xdist workers are given
    folders inside the controller's."""
    if config.option.basetemp or {"PYTEST_DEBUG_TEMPROOT", "TMPDIR"} & set(os.environ):
        return
    if (
        MEMORY_FOLDER.is_dir()
        and os.access(MEMORY_FOLDER, os.W_OK | os.X_OK)
        and memory_room(MEMORY_FOLDER) >= MEMORY_ROOM_NEEDED
    ):
        os.environ["PYTEST_DEBUG_TEMPROOT"] = str(MEMORY_FOLDER)


def memory_room(folder: Path) -> int:
    """Bytes an unprivileged writer may still put in `folder`'s file system."""
    stat = os.statvfs(folder)
    return stat.f_bavail * stat.f_frsize


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
def postgres_database(postgres_server: PostgresServer) -> Iterator[EmptyDatabase]:
    """This worker's own database on the shared server, so workers never see each other."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    database = EmptyDatabase(postgres_server.create_database(f"docbot_{worker}"))
    yield database
    database.close()


@pytest.fixture
def postgres_url(postgres_database: EmptyDatabase) -> str:
    """The worker's database, emptied: a test starts on no tables at all."""
    postgres_database.reset()
    return postgres_database.url


@pytest.fixture(scope="session")
def postgres_migrated_database(postgres_server: PostgresServer) -> Iterator[MigratedDatabase]:
    """This worker's second database, every migration applied once (tests/postgres_migrated.py)."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    database = MigratedDatabase(postgres_server.create_database(f"docbot_{worker}_migrated"))
    yield database
    database.close()


@pytest.fixture
def postgres_store_url(postgres_migrated_database: MigratedDatabase) -> str:
    """The worker's migrated database with every table emptied and its identities restarted:
    what a store sees on a fresh database once its migrations have run, without running them."""
    postgres_migrated_database.reset()
    return postgres_migrated_database.url
