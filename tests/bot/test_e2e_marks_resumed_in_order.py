"""Reactions on one message that a process recorded before their ack and kept pending when it
died are resolved by the next process in the order Slack sent them: a mark and its removal
leave no mark. Both store backends."""

from __future__ import annotations

import asyncio

from bot.app import Answerer
from bot.resume import Resumer
from bot.store import LEASE_SECONDS
from retrieval.config import Config
from tests.bot.e2e import acked_and_logged, posted_ts, posted_unheard
from tests.bot.harness import GENERAL, fake_slack, reaction, running_app, with_channels
from tests.bot.store.conftest import Backend, FakeClock

QUESTION_TS = "83.000100"


def test_app_a_mark_and_its_removal_kept_by_a_dead_process_leave_no_mark(
    indexed: tuple[Config, Answerer], backend: Backend, clock: FakeClock
) -> None:
    config, answerer = indexed
    store = backend.open(clock)
    resumer = Resumer()

    async def main() -> None:
        async with fake_slack() as slack:
            with_channels(slack)
            async with running_app(slack, config, answerer, store) as first:
                gate, post = await posted_unheard(slack, first, QUESTION_TS)  # posted, not marked
                reply_ts = posted_ts(post)
                slack.refuse("conversations.replies", "ratelimited")  # cannot be read back
                for added, event_id in ((True, "Ev83z"), (False, "Ev83b")):
                    body = reaction(added, "x", channel=GENERAL, item_ts=reply_ts,
                                    event_id=event_id)  # fmt: skip
                    await acked_and_logged(first, body, f"{event_id} on")
                    clock.now += 1.0  # claimed a second apart, as Slack sent them
            # The first process is gone, with both reactions kept in its memory only.
            slack.allow("conversations.replies")
            clock.now += LEASE_SECONDS + 1
            async with running_app(slack, config, answerer, store, resumer=resumer) as restarted:
                await resumer.sweep()
                await restarted.settle()
                await resumer.sweep()  # what the first sweep kept pending, if anything
                await restarted.settle()
                assert await resumer.sweep() == 0  # done
            gate.set()
        assert store.find_answer(slack.team_id, GENERAL, reply_ts) is not None
        assert store.feedback_entries(wrong_only=False) == ()

    asyncio.run(main())
