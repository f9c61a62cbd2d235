"""What only the PostgreSQL backend has: replicas (two engines on one database) racing for
claims and migrating together, its schema version, and URLs that never show their password."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TypeVar

import asyncpg
import pytest

from bot.store import (
    LEASE_SECONDS,
    Claim,
    EventKey,
    MentionKey,
    PostgresAnswerStore,
    StoreError,
)
from bot.store.postgres_schema import SCHEMA_VERSION
from tests.bot.store.conftest import FakeClock, record

T = TypeVar("T")
KEYS = [MentionKey("T1", "C1", f"{n}.0") for n in range(40)]


@dataclass
class Replicas:
    """Two stores, each its own engine and pool, on one database: two `docbot serve`s."""

    clock: FakeClock
    stores: tuple[PostgresAnswerStore, PostgresAnswerStore]


@pytest.fixture
def replicas(postgres_store_url: str) -> Iterator[Replicas]:
    clock = FakeClock()
    first = PostgresAnswerStore(postgres_store_url, clock=clock)
    second = PostgresAnswerStore(postgres_store_url, clock=clock)
    yield Replicas(clock, (first, second))
    first.close()
    second.close()


def _race(calls: list[Callable[[], T]]) -> list[T]:
    """Every call at once, each on its own thread; their results in order."""
    results: list[T | None] = [None] * len(calls)
    barrier = threading.Barrier(len(calls))

    def run(n: int) -> None:
        barrier.wait()
        results[n] = calls[n]()

    threads = [threading.Thread(target=run, args=(n,)) for n in range(len(calls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return [result for result in results if result is not None]


def test_postgres_replicas_racing_on_many_keys_each_win_a_key_once(replicas: Replicas) -> None:
    """Two replicas get every mention (Slack's redelivery to another connection): each key is
    granted once, then, lapsed, taken over once, and once done never granted again."""
    stores, clock = replicas.stores, replicas.clock

    def claims(owner_of: Callable[[int], str]) -> list[Callable[[], tuple[MentionKey, Claim]]]:
        return [
            (lambda k=key, n=n: (k, stores[n % 2].claim(k, owner_of(n))))
            for key in KEYS
            for n in range(4)
        ]

    first = _race(claims(lambda n: f"{n % 2}:first"))
    assert sorted(c for k, c in first if c.granted) == [Claim.NEW] * len(KEYS)
    assert {k for k, c in first if c is Claim.NEW} == set(KEYS)
    clock.now += LEASE_SECONDS + 1  # both replicas "died": every lease lapsed
    second = _race(claims(lambda n: f"{n % 2}:second"))
    assert sorted(c for k, c in second if c.granted) == [Claim.TAKEN_OVER] * len(KEYS)
    assert all(c is Claim.BUSY for k, c in second if not c.granted)
    for key in KEYS:
        stores[0].finish(key, "9.0")
    clock.now += LEASE_SECONDS * 10
    third = _race(claims(lambda n: f"{n % 2}:third"))
    assert {c for k, c in third} == {Claim.DONE}


def test_postgres_a_taken_over_owner_cannot_post_while_the_new_one_can(
    replicas: Replicas,
) -> None:
    old, new = replicas.stores
    key = EventKey("EvFrozen")
    assert old.claim(key, "1:old") is Claim.NEW
    replicas.clock.now += LEASE_SECONDS + 1  # the old owner froze past its lease
    assert new.claim(key, "2:new") is Claim.TAKEN_OVER
    results = _race([lambda: old.begin_post(key, "1:old"), lambda: new.begin_post(key, "2:new")])
    assert results == [False, True]  # only the live owner posts: one reply, never two


def test_postgres_replicas_starting_together_migrate_once(postgres_url: str) -> None:
    opened = _race([lambda: PostgresAnswerStore(postgres_url) for _ in range(4)])
    try:
        assert all(store.claim(EventKey("Ev1"), "1:a") is not None for store in opened)
        assert _scalar(postgres_url, "SELECT array_agg(version) FROM docbot_schema") == [
            SCHEMA_VERSION
        ]
    finally:
        for store in opened:
            store.close()


def test_postgres_refuses_a_newer_schema_naming_the_database(postgres_url: str) -> None:
    PostgresAnswerStore(postgres_url).close()
    _scalar(postgres_url, f"UPDATE docbot_schema SET version = {SCHEMA_VERSION + 1}")
    with pytest.raises(StoreError, match="newer than this docbot") as info:
        PostgresAnswerStore(postgres_url)
    assert postgres_url.rsplit("/", 1)[1] in str(info.value)


def test_postgres_answers_are_jsonb_on_the_server(postgres_url: str) -> None:
    store = PostgresAnswerStore(postgres_url)
    try:
        store.save_answer(record())
    finally:
        store.close()
    assert _scalar(postgres_url, "SELECT answer->'sources'->0->>'chunk_id' FROM answers") == (
        "chunk-a"
    )


def test_postgres_url_password_is_masked_in_where_and_errors(
    postgres_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    with_password = postgres_url.replace("://docbot@", "://docbot:s3cret-pw@")
    store = PostgresAnswerStore(with_password)  # the test server trusts loopback
    try:
        assert "s3cret" not in store.where and "docbot:***@" in store.where
    finally:
        store.close()
    nowhere = with_password.rsplit(":", 1)[0] + ":1/docbot"  # port 1: nothing listens
    with pytest.raises(StoreError) as info:
        PostgresAnswerStore(nowhere, timeout_seconds=2)
    assert "cannot be reached" in str(info.value)
    assert "s3cret" not in str(info.value) and "s3cret" not in caplog.text


@pytest.mark.parametrize(
    ("url", "says"),
    [
        ("mysql://u:pw@host/db", "not PostgreSQL"),
        ("postgresql://u:pw@host", "names no database"),
        ("not a url at all :pw", "not a URL"),
    ],
)
def test_postgres_bad_url_says_what_to_write_without_the_password(url: str, says: str) -> None:
    with pytest.raises(StoreError, match=says) as info:
        PostgresAnswerStore(url)
    assert "pw" not in str(info.value).replace("password", "")
    assert "postgresql://user:password@host:5432/db" in str(info.value) or "DBNAME" in str(
        info.value
    )


def _scalar(url: str, statement: str) -> object:
    async def run() -> object:
        conn = await asyncpg.connect(url)
        try:
            return await conn.fetchval(statement)
        finally:
            await conn.close()

    return asyncio.run(run())


def test_postgres_database_that_does_not_exist_says_how_to_create_it(postgres_url: str) -> None:
    missing = postgres_url.rsplit("/", 1)[0] + "/nosuchdb"
    with pytest.raises(StoreError) as info:
        PostgresAnswerStore(missing, timeout_seconds=2)
    message = str(info.value)
    assert 'database "nosuchdb" does not exist' in message
    assert "createdb nosuchdb" in message and "DOCBOT_DATABASE_URL" in message


@pytest.mark.parametrize("usage", [True, False], ids=["no-create-right", "no-schema-usage"])
def test_postgres_user_without_the_right_to_create_tables_is_told_which_grant(
    postgres_url: str, usage: bool
) -> None:
    # Roles belong to the whole cluster, each test worker has its own database: one role each.
    role = f"reader_{postgres_url.rsplit('/', 1)[1]}_{int(usage)}"

    async def restrict() -> None:
        conn = await asyncpg.connect(postgres_url)
        try:
            if await conn.fetchval("SELECT 1 FROM pg_roles WHERE rolname = $1", role):
                await conn.execute(f"DROP OWNED BY {role}")
                await conn.execute(f"DROP ROLE {role}")
            await conn.execute(f"CREATE ROLE {role} LOGIN")
            await conn.execute("REVOKE ALL ON SCHEMA public FROM PUBLIC")
            if usage:
                await conn.execute(f"GRANT USAGE ON SCHEMA public TO {role}")
        finally:
            await conn.close()

    asyncio.run(restrict())
    reader = postgres_url.replace("://docbot@", f"://{role}@")
    with pytest.raises(StoreError) as info:
        PostgresAnswerStore(reader, timeout_seconds=2)
    assert f"GRANT USAGE, CREATE ON SCHEMA public TO {role}" in str(info.value), info.value


def test_postgres_login_refused_says_to_check_the_user_and_password(postgres_url: str) -> None:
    stranger = postgres_url.replace("://docbot@", "://no_such_role:pw@")
    with pytest.raises(StoreError) as info:
        PostgresAnswerStore(stranger, timeout_seconds=2)
    assert "Check the user and password in DOCBOT_DATABASE_URL" in str(info.value)
    assert "pw@" not in str(info.value)


def test_postgres_unreachable_at_start_says_docbot_did_not_start(
    postgres_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    """Before the store ever answered, nothing is running that could reconnect or post: the
    error says to start docbot again once the server answers, and no outage is logged."""
    nowhere = postgres_url.rsplit(":", 1)[0] + ":1/docbot"  # port 1: nothing listens
    with pytest.raises(StoreError) as info:
        PostgresAnswerStore(nowhere, timeout_seconds=2)
    message = str(info.value)
    assert "cannot be reached" in message and "start docbot again" in message
    assert "reconnects on its own" not in message
    assert "answers in progress" not in caplog.text
