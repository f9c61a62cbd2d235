"""What a reaction costs in Slack calls (bot/reactions.py _reacted_to): a reaction on a reply the
store knows by its ts reads nothing back. (One on a reply not yet marked posted reads the message
once, and survives a 429 on that read: tests/bot/test_e2e_reaction_before_marked.py.) Both store
backends."""

from __future__ import annotations

from bot.app import Answerer
from retrieval.config import Config
from tests.bot.e2e import ask, run, stored_reply
from tests.bot.fake_slack import FakeSlack
from tests.bot.harness import GENERAL, RunningApp, reaction
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
