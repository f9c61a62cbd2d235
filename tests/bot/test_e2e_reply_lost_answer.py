"""An answer Slack posted but whose answer to chat.postMessage was lost (a 500, a dropped
connection): docbot reads the thread for the reply's metadata instead of posting it again, so
the thread shows one answer, stored under the ts Slack gave it (reactions on it count).
"""

from __future__ import annotations

import asyncio

import pytest

from bot.app import Answerer
from bot.retries import SERVER_ERROR_RETRIES
from bot.store import SQLiteAnswerStore
from retrieval.config import Config
from tests.bot.conftest import TEAM
from tests.bot.e2e import LogSignal, ask, run
from tests.bot.fake_slack import FakeSlack
from tests.bot.harness import GENERAL, RunningApp


@pytest.mark.parametrize("lost", [500, None], ids=["http-500", "dropped-connection"])
def test_app_a_reply_slack_posted_without_saying_so_is_not_posted_again(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore, lost: int | None
) -> None:
    config, answerer = indexed

    async def scenario(slack: FakeSlack, app: RunningApp) -> None:
        slack.lose_next_answer("chat.postMessage", lost)
        await app.send(ask(slack, "how do I roll back a deploy?", GENERAL, "40.000100"))
        await app.settle()
        replies = [m for m in slack.messages[GENERAL] if m.get("thread_ts") == "40.000100"]
        assert len(replies) == 1
        record = store.find_answer(TEAM, GENERAL, replies[0]["ts"])
        assert record is not None and record.question_ts == "40.000100"

    run(config, answerer, store, scenario)


def test_app_a_reply_lost_on_the_way_is_looked_for_then_posted(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    """A 500 before Slack posted anything: the thread has no reply, so it is posted again."""
    config, answerer = indexed

    async def scenario(slack: FakeSlack, app: RunningApp) -> None:
        slack.fail_next("chat.postMessage", 500)
        await app.send(ask(slack, "how do I roll back a deploy?", GENERAL, "41.000100"))
        await app.settle()
        (reply,) = slack.posted()
        assert reply.params["thread_ts"] == "41.000100"
        (looked,) = slack.calls_to("conversations.replies")
        assert looked.params["ts"] == "41.000100"
        assert store.find_answer(TEAM, GENERAL, reply.response["ts"]) is not None

    run(config, answerer, store, scenario)


def test_app_a_reply_that_cannot_be_looked_for_is_not_posted_again(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    """Slack posted the reply but its answer was lost, and the thread cannot be read either:
    posting again would show the reply twice, so the run leaves the question, its post begun,
    to the run that takes it over (which reads the thread when Slack lets it)."""
    config, answerer = indexed

    async def scenario(slack: FakeSlack, app: RunningApp) -> None:
        slack.lose_next_answer("chat.postMessage", 500)
        slack.fail_next("conversations.replies", 500, count=1 + SERVER_ERROR_RETRIES)
        with LogSignal(
            "docbot.slack", "leaving it to the run that takes the question over"
        ) as left:
            await app.send(ask(slack, "how do I roll back a deploy?", GENERAL, "42.000100"))
            await asyncio.wait_for(left.event.wait(), 10)
        await app.settle()
        replies = [m for m in slack.messages[GENERAL] if m.get("thread_ts") == "42.000100"]
        assert len(replies) == 1
        assert len(slack.calls_to("chat.postMessage")) == 1

    run(config, answerer, store, scenario)
