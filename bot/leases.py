"""A claim held while its run lasts: the owner's identity, the heartbeat that renews the lease,
and giving it up when the run ends unfinished. The rules live in bot/store/contract.py.
"""

from __future__ import annotations

import asyncio
import logging
import os
import secrets
from types import TracebackType

from bot.store import LEASE_SECONDS, Claim, ClaimKey, EventLedger

log = logging.getLogger("docbot.slack")

# Three renewals per lease: a run survives two missed ones (a stalled loop, a busy database)
# and is taken over only once its process is gone (contract.LEASE_SECONDS says why 30 s).
RENEW_EVERY_SECONDS = LEASE_SECONDS / 3


def process_owner() -> str:
    """This process as a claim owner: its pid for the admin reading the store, and a random
    token, since a restarted container runs docbot under the same pid again."""
    return f"{os.getpid()}:{secrets.token_hex(8)}"


class Lease:
    """A granted claim: renewed in the background until finished; released (free for the next
    delivery at once) when the run ends any other way, including cancellation at shutdown."""

    def __init__(
        self, ledger: EventLedger, key: ClaimKey, owner: str, claim: Claim, renew_every: float
    ) -> None:
        self.key = key
        self.claim = claim
        self._ledger = ledger
        self._owner = owner
        self._renew_every = renew_every
        self._heartbeat: asyncio.Task[None] | None = None
        self.finished = False
        self.posting = False

    async def __aenter__(self) -> Lease:
        self._heartbeat = asyncio.create_task(self._renew())
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._heartbeat is not None:
            self._heartbeat.cancel()
        if not self.finished:
            try:
                await asyncio.to_thread(self._ledger.release, self.key, self._owner)
            except Exception:
                # The lease then lapses on its own within LEASE_SECONDS.
                log.exception("releasing the claim on %s failed", self.key)

    async def begin_post(self) -> bool:
        """Whether this run may post: False when another owner took the claim over."""
        if not await asyncio.to_thread(self._ledger.begin_post, self.key, self._owner):
            log.warning("the claim on %s was taken over by another run; not posting", self.key)
            return False
        self.posting = True
        return True

    async def finish(self, reply_ts: str | None = None) -> None:
        """Done, for good; a store failure here is logged: the reply has been posted, and a
        later claim finds it (it is `UNSURE`, then sees the reply)."""
        try:
            await asyncio.to_thread(self._ledger.finish, self.key, reply_ts)
        except Exception:
            log.exception("marking %s done failed", self.key)
            return
        self.finished = True

    async def _renew(self) -> None:
        while True:
            await asyncio.sleep(self._renew_every)
            try:
                if not await asyncio.to_thread(self._ledger.renew, self.key, self._owner):
                    log.warning("the claim on %s is no longer this run's", self.key)
                    return
            except Exception:
                log.exception("renewing the claim on %s failed", self.key)
