"""What a reaction costs in Slack calls and how the one read it may need survives a rate limit
(bot/reactions.py _reacted_to): a reaction on a reply the store knows by its ts reads nothing
back; one on a reply not yet marked posted reads the message once, and a 429 on that read is
waited out (Retry-After) and retried, the mark then counted. Both store backends."""

from __future__ import annotations

import asyncio

from bot.app import Answerer
from retrieval.config import Config
from tests.bot.conftest import TEAM
from tests.bot.e2e import ask, posted_ts, run, stored_reply
from tests.bot.fake_slack import FakeSlack
from tests.bot.harness import GENERAL, RunningApp, fake_slack, reaction, running_app, with_channels
from tests.bot.store.conftest import Backend, FakeClock

QUESTION = "how do I roll back a deploy?"


def test_app_a_reaction_on_a_reply_the_store_knows_reads_nothing_back(
    indexed: tuple[Config, Answerer], backend: Backend, clock: FakeClock
) -> None:
    config, answerer = indexed
    store = backend.open(clock)

    async def scenario(slack: FakeSlack, app: RunningApp) -> None:
        await app.send(ask(slack, QUESTION, GENERAL, "74.000100"))
        reply_ts = await stored_reply(slack, store)
        await app.settle()
        reads = len(slack.calls_to("conversations.replies"))
        await app.send(reaction(True, "x", channel=GENERAL, item_ts=reply_ts, event_id="Ev74x"))
        await app.settle()
        assert len(store.feedback_entries(wrong_only=True)) == 1
        assert len(slack.calls_to("conversations.replies")) == reads

    run(config, answerer, store, scenario)


def test_app_a_rate_limited_read_of_a_reply_not_yet_marked_is_retried(
    indexed: tuple[Config, Answerer], backend: Backend, clock: FakeClock
) -> None:
    config, answerer = indexed
    store = backend.open(clock)

    async def main() -> None:
        async with fake_slack() as slack:
            with_channels(slack)
            async with (
                running_app(slack, config, answerer, store) as posting,
                running_app(slack, config, answerer, store) as other,
            ):
                gate = slack.hold("chat.postMessage", after=True)
                await posting.send(ask(slack, QUESTION, GENERAL, "75.000100"))
                (post,) = await slack.wait_for("chat.postMessage")
                reply_ts = posted_ts(post)
                slack.fail_next("conversations.replies", 429, retry_after=3)
                await other.send(reaction(True, "x", channel=GENERAL, item_ts=reply_ts,
                                          event_id="Ev75x"))  # fmt: skip
                await other.settle()
                (entry,) = store.feedback_entries(wrong_only=True)
                assert entry.record.reply_ts == reply_ts
                (wait,) = other.waits.seconds
                assert wait >= 3.0  # Retry-After, with the policy's jitter on top
                read, again = slack.calls_to("conversations.replies")
                assert read.status == 429 and again.response.get("ok")
                gate.set()
                await posting.settle()
            record = store.find_answer(TEAM, GENERAL, reply_ts)
            assert record is not None and record.id == entry.record.id

    asyncio.run(main())
