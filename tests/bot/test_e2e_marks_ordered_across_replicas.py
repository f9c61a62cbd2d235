"""A :x: one replica keeps pending (its reply's answer not yet known there) and its removal,
delivered to another replica once the answer is stored: the person who added and removed it
sees no mark. The removal finds nothing to take back, and is remembered by its event time
(bot/store/reaction_order.py); the mark, older, changes nothing when its replica counts it.
Two apps on one store (an SQLite file, a PostgreSQL database), on the fake Slack."""

from __future__ import annotations

import asyncio

from bot.app import Answerer
from bot.resume import Resumer
from bot.retries import SERVER_ERROR_RETRIES
from retrieval.config import Config
from tests.bot.conftest import TEAM
from tests.bot.e2e import acked_and_logged, posted_ts, posted_unheard, until
from tests.bot.harness import ASKER, GENERAL, reaction, two_replicas
from tests.bot.store.conftest import Backend, FakeClock


def test_app_a_mark_kept_by_one_replica_and_removed_on_another_does_not_count(
    indexed: tuple[Config, Answerer], backend: Backend, clock: FakeClock
) -> None:
    config, answerer = indexed
    store, other_store = backend.open(clock), backend.open(clock)  # two processes, one store
    resumer = Resumer()

    async def main() -> None:
        async with two_replicas(config, answerer, store, other_store, resumer=resumer) as (
            slack, asked, keeper,
        ):  # fmt: skip
            gate, post = await posted_unheard(slack, asked, "85.000100")  # posted, not marked
            reply_ts = posted_ts(post)
            slack.fail_next("conversations.replies", 500, count=1 + SERVER_ERROR_RETRIES)
            added = reaction(True, "x", channel=GENERAL, item_ts=reply_ts, event_id="Ev85a")
            await acked_and_logged(keeper, added, "kept until its answer is stored")
            # Its run looks at the store once more after that line: let it end before the answer
            # is marked, or (a loaded machine) it counts the mark then, rightly, before the
            # removal is made, and the person is thanked for it.
            await keeper.settle()
            gate.set()  # the asking replica marks its answer; the mark is kept on the other
            await until(lambda: store.find_answer(TEAM, GENERAL, reply_ts) is not None)
            await asked.settle()
            removed = reaction(False, "x", channel=GENERAL, item_ts=reply_ts, event_id="Ev85r")
            assert (await asked.send(removed))[0] == 200  # finds nothing to take back
            await asked.settle()
            await resumer.sweep()  # the keeper counts what it kept, now that the answer is known
            await keeper.settle()
            assert await resumer.sweep() == 0  # nothing left to resolve
            await keeper.settle()
        assert store.feedback_entries(wrong_only=False) == ()
        assert other_store.pending_reason(TEAM, GENERAL, "85.000100", ASKER) is None
        assert slack.calls_to("chat.postEphemeral") == []  # no thank-you for a mark not there

    asyncio.run(main())
