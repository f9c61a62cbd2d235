"""A lease whose store cannot be reached (a real PostgreSQL server, stopped): the run posts while
its lease cannot have lapsed yet, and not once it may have (another replica may own it then)."""

from __future__ import annotations

import asyncio

from bot.leases import Lease
from bot.store import Claim, MentionKey, PostgresAnswerStore
from tests.postgres_server import PostgresServer

KEY = MentionKey("T1", "C1", "1.0")


def test_lease_posts_without_the_store_only_while_the_lease_is_surely_held(
    private_postgres: PostgresServer,
) -> None:
    store = PostgresAnswerStore(private_postgres.create_database("docbot"), timeout_seconds=2)

    async def main() -> tuple[bool, bool, bool]:
        claim = store.claim(KEY, "1:mine")
        assert claim is Claim.NEW
        await asyncio.to_thread(private_postgres.stop)
        fresh = Lease(store, KEY, "1:mine", claim, renew_every=10, lease_seconds=30)
        # Renewing as often as the lease lasts leaves no margin: it may have lapsed already.
        doubtful = Lease(store, KEY, "1:mine", claim, renew_every=30, lease_seconds=30)
        unclaimed = Lease(store, KEY, "1:mine", None, renew_every=10)
        async with fresh, doubtful, unclaimed:
            return (
                await fresh.begin_post(),
                await doubtful.begin_post(),
                await unclaimed.begin_post(),
            )

    try:
        assert asyncio.run(main()) == (True, False, True)
    finally:
        store.close()
