"""Lease: the heartbeat keeps a slow run's claim, and a run that ends unfinished (an error, or
cancelled at shutdown) gives the claim up at once."""

from __future__ import annotations

import asyncio
from pathlib import Path

from bot.leases import Lease, process_owner
from bot.store import LEASE_SECONDS, Claim, ClaimKey, MentionKey, Resumable, SQLiteAnswerStore
from tests.bot.store.conftest import FakeClock

KEY = MentionKey("T1", "C1", "1.0")


class RenewalSignal:
    """The real store, signalling each renewal so a test can wait for it."""

    def __init__(self, inner: SQLiteAnswerStore) -> None:
        self.inner = inner
        self.renewed = asyncio.Queue[bool]()
        self._loop = asyncio.get_running_loop()

    def claim(self, key: ClaimKey, owner: str, payload: str | None = None) -> Claim:
        return self.inner.claim(key, owner, payload)

    def resumable(
        self, window_seconds: float, limit: int, unsure_window_seconds: float | None = None
    ) -> tuple[Resumable, ...]:
        return self.inner.resumable(window_seconds, limit, unsure_window_seconds)

    def renew(self, key: ClaimKey, owner: str) -> bool:
        result = self.inner.renew(key, owner)
        self._loop.call_soon_threadsafe(self.renewed.put_nowait, result)
        return result

    def begin_post(self, key: ClaimKey, owner: str) -> bool:
        return self.inner.begin_post(key, owner)

    def finish(self, key: ClaimKey, reply_ts: str | None = None) -> None:
        self.inner.finish(key, reply_ts)

    def release(self, key: ClaimKey, owner: str) -> None:
        self.inner.release(key, owner)

    def defer(
        self, key: ClaimKey, owner: str, seconds: float, within_seconds: float,
        unsure_within_seconds: float | None = None,
    ) -> bool:  # fmt: skip
        return self.inner.defer(key, owner, seconds, within_seconds, unsure_within_seconds)


def test_lease_owner_is_pid_and_a_token_unique_per_process() -> None:
    first, second = process_owner(), process_owner()
    assert first.split(":")[0] == second.split(":")[0] and first != second


def test_lease_heartbeat_keeps_a_run_slower_than_the_lease(tmp_path: Path) -> None:
    clock = FakeClock()
    store = SQLiteAnswerStore(tmp_path / "s.db", clock=clock)

    async def main() -> None:
        ledger = RenewalSignal(store)
        owner = "1:mine"
        async with Lease(ledger, KEY, owner, store.claim(KEY, owner), renew_every=0.001) as lease:
            for _ in range(5):  # five lease lengths: far beyond any answer deadline
                clock.now += LEASE_SECONDS * 0.9
                assert await asyncio.wait_for(ledger.renewed.get(), 5)
                assert store.claim(KEY, "2:other") is Claim.BUSY
            await lease.finish("2.0")
        assert store.claim(KEY, "2:other") is Claim.DONE

    asyncio.run(main())
    store.close()


def test_lease_unfinished_or_cancelled_run_releases_its_claim(tmp_path: Path) -> None:
    store = SQLiteAnswerStore(tmp_path / "s.db", clock=FakeClock())
    other = MentionKey("T1", "C1", "2.0")

    async def hold(key: MentionKey, started: asyncio.Event) -> None:
        async with Lease(store, key, "1:mine", store.claim(key, "1:mine"), renew_every=60):
            started.set()
            await asyncio.Event().wait()  # an answer that never comes

    async def main() -> None:
        async with Lease(store, KEY, "1:mine", store.claim(KEY, "1:mine"), renew_every=60):
            pass  # ended without finishing (the answer failed before posting)
        assert store.claim(KEY, "2:other") is Claim.TAKEN_OVER
        started = asyncio.Event()
        run = asyncio.create_task(hold(other, started))
        await started.wait()
        run.cancel()  # shutdown gave up waiting for it
        await asyncio.gather(run, return_exceptions=True)
        assert store.claim(other, "2:other") is Claim.TAKEN_OVER

    asyncio.run(main())
    store.close()
