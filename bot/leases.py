"""A claim held while its run lasts: the owner's identity, the heartbeat that renews the lease,
and giving it up when the run ends unfinished. The rules live in bot/store/contract.py.
"""

from __future__ import annotations

import asyncio
import logging
import os
import secrets
from types import TracebackType

from bot.store import (
    LEASE_SECONDS,
    AnswerRecord,
    Claim,
    ClaimKey,
    EventLedger,
    StoreUnavailable,
)

log = logging.getLogger("docbot.slack")

# Three renewals per lease: a run survives two missed ones (a stalled loop, a busy database)
# and is taken over only once its process is gone (contract.LEASE_SECONDS says why 30 s).
RENEW_EVERY_SECONDS = LEASE_SECONDS / 3
# How often serve looks for lapsed claims to resume (bot/resume.py).
RESUME_EVERY_SECONDS = RENEW_EVERY_SECONDS
# Slack's own retries end about five minutes after the first delivery; a question unanswered
# for longer than this is left alone, since an answer that late is more puzzling than
# useful, and a reply that keeps failing must not be retried for days.
RESUME_WINDOW_SECONDS = 15 * 60
# A claim deferred (Lease.defer) lapses at the latest this long after its first claim, so the
# sweep after it still finds it inside RESUME_WINDOW_SECONDS.
DEFER_WITHIN_SECONDS = RESUME_WINDOW_SECONDS - RESUME_EVERY_SECONDS
# A question whose run stopped after it began posting (Claim.UNSURE) may have its reply in the
# thread, and is answered again only once the thread has been read. Slack's history limit (one
# read a minute for an app outside the Marketplace) lets one such takeover a minute read, so
# the 15 minutes above would check only the first ~14 of a workspace and answer the rest
# unchecked, twice where the reply was there. These are resumed, and deferred, for an hour: ~59
# a workspace, more replies than a replica has in flight. A question whose run had not begun
# posting keeps the window above: it is almost never in the thread, so it is not held back.
UNSURE_WINDOW_SECONDS = 60 * 60
DEFER_UNSURE_WITHIN_SECONDS = UNSURE_WINDOW_SECONDS - RESUME_EVERY_SECONDS


def process_owner() -> str:
    """This process as a claim owner: its pid for the admin reading the store, and a random
    token, since a restarted container runs docbot under the same pid again."""
    return f"{os.getpid()}:{secrets.token_hex(8)}"


class Lease:
    """A granted claim: renewed in the background until finished; released (free for the next
    delivery at once) when the run ends any other way, including cancellation at shutdown.

    A store that cannot be reached (StoreUnavailable, which the store logs once per outage)
    does not stop the answer: the lease counts as held until LEASE_SECONDS after the store last
    confirmed it, so the reply is posted within that time; a later owner of the claim, which
    stayed open, looks for that reply before answering (bot/questions.claim_turn). `unclaimed`
    is a run the store could not claim at all: it answers without a lease."""

    def __init__(
        self, ledger: EventLedger, key: ClaimKey, owner: str, claim: Claim | None,
        renew_every: float, lease_seconds: float = LEASE_SECONDS,
    ) -> None:  # fmt: skip
        self.key = key
        self.claim = claim
        self._ledger = ledger
        self._owner = owner
        self._renew_every = renew_every
        self._lease_seconds = lease_seconds
        self._confirmed = asyncio.get_running_loop().time()
        self._heartbeat: asyncio.Task[None] | None = None
        self.finished = False
        self.posting = False
        self.left_open = False
        # A stream a stopped run left cut off (bot/takeover.py): this run writes the answer into
        # it instead of posting; `cut_answer` is the answer that run stored under it, if any.
        self.cut_stream: str | None = None
        self.cut_answer: AnswerRecord | None = None

    @property
    def unclaimed(self) -> bool:
        return self.claim is None

    def held(self) -> bool:
        """Whether no other owner can have taken the claim over yet, by this process's clock:
        the store confirmed it less than a lease ago, minus a renewal's worth of margin."""
        margin = self._lease_seconds - self._renew_every
        return asyncio.get_running_loop().time() - self._confirmed < margin

    async def __aenter__(self) -> Lease:
        if not self.unclaimed:
            self._heartbeat = asyncio.create_task(self._renew())
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._heartbeat is not None:
            self._heartbeat.cancel()
        if not self.finished and not self.unclaimed and not self.left_open:
            try:
                await asyncio.to_thread(self._ledger.release, self.key, self._owner)
            except StoreUnavailable:
                pass  # the store said so once; the lease lapses on its own
            except Exception:
                # The lease then lapses on its own within LEASE_SECONDS.
                log.exception("releasing the claim on %s failed", self.key)

    def leave_open(self) -> None:
        """End the run without giving the claim up: for a post Slack may or may not have made
        and that cannot be looked for now. Releasing would let the next press post it again;
        left open, the claim lapses after its lease, and its next owner, taking it over, looks
        for the post before making it."""
        self.left_open = True

    async def defer(self, seconds: float) -> bool:
        """Before this run begins: hold the claim out of every run's reach for `seconds` (a
        redelivery finds it busy, no sweep resumes it), then let it lapse for the next sweep to
        resume; for a question that cannot be answered safely before then (Slack asked docbot
        to wait that long). False when the claim is not this run's, or when it would lapse past
        DEFER_WITHIN_SECONDS of its first claim (DEFER_UNSURE_WITHIN_SECONDS if its last run
        began posting): then it must be answered now or never.

        A store that cannot be reached leaves the claim as it was, held for a lease from now:
        it lapses on its own, and is resumed once the store is back (True)."""
        if self.unclaimed:
            return False
        try:
            return await asyncio.to_thread(
                self._ledger.defer, self.key, self._owner, seconds, DEFER_WITHIN_SECONDS,
                DEFER_UNSURE_WITHIN_SECONDS,
            )  # fmt: skip
        except StoreUnavailable:
            return True

    async def begin_post(self) -> bool:
        """Whether this run may post: False when another owner took the claim over, or when the
        store cannot say and the lease may have lapsed meanwhile."""
        if self.unclaimed:
            self.posting = True
            return True
        try:
            if not await asyncio.to_thread(self._ledger.begin_post, self.key, self._owner):
                log.warning("the claim on %s was taken over by another run; not posting", self.key)
                return False
        except StoreUnavailable:
            if not self.held():
                log.warning(
                    "not posting the reply on %s: the store cannot confirm its claim, which may "
                    "have lapsed; it is answered once the store is back", self.key,
                )  # fmt: skip
                return False
        self.posting = True
        return True

    async def finish(self, reply_ts: str | None = None) -> None:
        """Done, for good; a store failure here is logged: the reply has been posted, and a
        later claim finds it (it is `UNSURE`, then sees the reply)."""
        if self.unclaimed:
            return
        try:
            await asyncio.to_thread(self._ledger.finish, self.key, reply_ts)
        except StoreUnavailable:
            return  # the claim stays open: its next owner finds the reply and finishes it
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
                self._confirmed = asyncio.get_running_loop().time()
            except StoreUnavailable:
                pass  # said once by the store; `held` decides whether to post meanwhile
            except Exception:
                log.exception("renewing the claim on %s failed", self.key)
