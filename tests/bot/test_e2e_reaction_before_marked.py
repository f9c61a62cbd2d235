"""A reaction on a reply in the moment between Slack posting it and its run marking the staged
answer posted (Slack's answer to the post not back yet): the reply is not known to the store by
its ts, so the replica handling the reaction reads the message back, and its reply metadata
names the question whose staged answer it is. The mark counts, the answer is marked posted, and
the posting run, once Slack answers it, finds it so and stores nothing twice. (A 429 on that read:
tests/bot/test_e2e_reaction_rate_limited.py.) Two replicas on one store; both backends."""

from __future__ import annotations

import asyncio

from bot.app import Answerer
from retrieval.config import Config
from tests.bot.conftest import TEAM
from tests.bot.e2e import posted_ts, posted_unheard
from tests.bot.harness import ASKER, GENERAL, reaction, two_replicas
from tests.bot.store.conftest import Backend, FakeClock

QUESTION_TS = "73.000100"


def test_app_a_reaction_before_the_reply_is_marked_posted_is_recorded(
    indexed: tuple[Config, Answerer], backend: Backend, clock: FakeClock
) -> None:
    config, answerer = indexed
    store = backend.open(clock)

    async def main() -> None:
        async with two_replicas(config, answerer, store) as replicas:
            slack, posting, other = replicas
            gate, post = await posted_unheard(slack, posting, QUESTION_TS)
            reply_ts = posted_ts(post)
            assert store.find_answer(TEAM, GENERAL, reply_ts) is None  # not marked yet
            await other.send(reaction(True, "x", channel=GENERAL, item_ts=reply_ts,
                                      event_id="Ev73x"))  # fmt: skip
            await other.settle()
            (entry,) = store.feedback_entries(wrong_only=True)
            assert (entry.record.reply_ts, entry.record.question_ts) == (reply_ts, QUESTION_TS)
            (thanks,) = slack.calls_to("chat.postEphemeral")
            assert thanks.params["user"] == ASKER
            gate.set()  # Slack's answer reaches the posting run: it finds the answer marked
            await posting.settle()
        record = store.find_answer(TEAM, GENERAL, reply_ts)
        assert record is not None and record.id == entry.record.id
        assert store.posted_answer(TEAM, GENERAL, QUESTION_TS) == record
        assert len(slack.posted()) == 1
        assert len(store.feedback_entries(wrong_only=True)) == 1

    asyncio.run(main())
