"""A reaction kept pending keeps its claim while the process keeping it lives: each of its
sweeps renews the claim, so it never lapses for another replica's sweep to take over and read
Slack again (a read Slack's history limit allows about once a minute). Both store backends."""

from __future__ import annotations

import asyncio

from bot.app import Answerer
from bot.resume import Resumer
from bot.store import LEASE_SECONDS, EventKey
from retrieval.config import Config
from tests.bot.e2e import acked_and_logged, posted_ts, posted_unheard
from tests.bot.harness import GENERAL, fake_slack, reaction, running_app, with_channels
from tests.bot.store.conftest import Backend, FakeClock


def test_app_a_kept_reaction_claim_is_renewed_by_its_process_sweeps(
    indexed: tuple[Config, Answerer], backend: Backend, clock: FakeClock
) -> None:
    config, answerer = indexed
    store = backend.open(clock)
    resumer = Resumer()

    async def main() -> None:
        async with fake_slack() as slack:
            with_channels(slack)
            async with running_app(slack, config, answerer, store, resumer=resumer) as app:
                gate, post = await posted_unheard(slack, app, "84.000100")  # posted, not marked
                reply_ts = posted_ts(post)
                slack.refuse("conversations.replies", "ratelimited")  # cannot be read back
                body = reaction(True, "x", channel=GENERAL, item_ts=reply_ts, event_id="Ev84x")
                await acked_and_logged(app, body, "kept until its answer is stored")
                clock.now += LEASE_SECONDS * 2 / 3
                await resumer.sweep()  # this process's, before the claim would lapse
                clock.now += LEASE_SECONDS * 2 / 3  # past the claim's first lease
                lapsed = {r.key for r in store.resumable(600, 10)}
                assert EventKey("Ev84x") not in lapsed  # another replica's sweep leaves it
                slack.allow("conversations.replies")
                gate.set()  # the posting run marks its answer and counts the kept reaction
                await app.settle()
        (entry,) = store.feedback_entries(wrong_only=True)
        assert entry.record.reply_ts == reply_ts

    asyncio.run(main())
