"""A reaction on a reply not yet marked posted, when Slack's history limit turns away the read
back (conversations.replies answers 429, as it does for an app outside the Marketplace that used
its one call of the minute): the 429 is not waited out (Retry-After may be a minute), the mark is
kept pending, not dropped, and counted once the store knows the reply's answer, without reading
Slack again: at once on the replica whose run marks it, on the next sweep on another; and Slack
is not asked again before its Retry-After. Two replicas on one store; both backends."""

from __future__ import annotations

import asyncio

import pytest

from bot.app import Answerer
from bot.resume import Resumer
from retrieval.config import Config
from tests.bot.conftest import TEAM
from tests.bot.e2e import posted_ts, posted_unheard
from tests.bot.fake_slack_limits import RateLimit
from tests.bot.harness import ASKER, GENERAL, reaction, two_replicas
from tests.bot.store.conftest import Backend, FakeClock
from tests.grounding import fake_clock

QUESTION_TS = "77.000100"


@pytest.mark.parametrize("where", ["posting-replica", "other-replica"])
def test_app_a_reaction_whose_read_back_is_rate_limited_is_kept_and_counted_once(
    indexed: tuple[Config, Answerer], backend: Backend, clock: FakeClock, where: str
) -> None:
    config, answerer = indexed
    store = backend.open(clock)
    resumer = Resumer()
    minute = FakeClock(0.0)

    async def main() -> None:
        async with two_replicas(config, answerer, store, resumer=resumer) as replicas:
            slack, posting, other = replicas
            reacting = posting if where == "posting-replica" else other
            limit = slack.rate_limit("conversations.replies", RateLimit(1, 60.0, minute))
            assert limit.admit() is None  # this minute's one call is spent
            gate, post = await posted_unheard(slack, posting, QUESTION_TS)
            reply_ts = posted_ts(post)
            await reacting.send(reaction(True, "x", channel=GENERAL, item_ts=reply_ts,
                                         event_id="Ev77x"))  # fmt: skip
            (read,) = await slack.wait_for("conversations.replies")
            assert read.status == 429 and reacting.waits.seconds == []  # not waited out
            if reacting is other:
                await other.settle()
                assert store.feedback_entries(wrong_only=True) == ()  # pending, not lost
                await resumer.sweep()  # before Retry-After: the store is asked, not Slack
                await other.settle()
                assert store.feedback_entries(wrong_only=True) == ()
            gate.set()  # Slack's answer reaches the posting run, which marks the answer
            await posting.settle()
            await resumer.sweep()
            await other.settle()
            (entry,) = store.feedback_entries(wrong_only=True)
            assert (entry.record.reply_ts, entry.record.question_ts) == (reply_ts, QUESTION_TS)
            (thanks,) = slack.calls_to("chat.postEphemeral")
            assert thanks.params["user"] == ASKER
            assert len(slack.calls_to("conversations.replies")) == 1  # not read again
            await resumer.sweep()
            await other.settle()
        assert store.find_answer(TEAM, GENERAL, reply_ts) == entry.record
        assert len(store.feedback_entries(wrong_only=True)) == 1

    asyncio.run(main())


def test_app_a_kept_reaction_reads_slack_again_after_retry_after_when_nobody_marks_it(
    indexed: tuple[Config, Answerer], backend: Backend, clock: FakeClock
) -> None:
    """The posting run never hears back (as if killed after Slack posted): the reacting replica
    asks Slack again once the Retry-After has passed, finds the reply's question, marks its
    staged answer posted and counts the mark."""
    config, answerer = indexed
    store = backend.open(clock)
    resumer, time = Resumer(), fake_clock.FakeClock()

    async def main() -> None:
        async with two_replicas(config, answerer, store, resumer=resumer,
                                clock=time) as (slack, posting, other):  # fmt: skip
            limit = slack.rate_limit("conversations.replies", RateLimit(1, 60.0, time.now))
            assert limit.admit() is None  # this minute's one call is spent
            gate, post = await posted_unheard(slack, posting, "78.000100")
            reply_ts = posted_ts(post)
            await other.send(reaction(True, "x", channel=GENERAL, item_ts=reply_ts,
                                      event_id="Ev78x"))  # fmt: skip
            await other.settle()
            await resumer.sweep()
            await other.settle()
            assert len(slack.calls_to("conversations.replies")) == 1  # Retry-After not passed
            assert store.feedback_entries(wrong_only=True) == ()
            time.advance(60.0)
            await resumer.sweep()
            await other.settle()
            read, again = slack.calls_to("conversations.replies")
            assert read.status == 429 and again.response.get("ok")
            (entry,) = store.feedback_entries(wrong_only=True)
            assert entry.record.reply_ts == reply_ts
            gate.set()
            await posting.settle()
        assert len(slack.posted()) == 1 and len(store.feedback_entries(wrong_only=True)) == 1

    asyncio.run(main())
