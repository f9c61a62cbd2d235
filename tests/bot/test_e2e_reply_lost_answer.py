"""An answer Slack posted but whose answer to chat.postMessage was lost (a 500, a dropped
connection): docbot reads the thread for the reply's metadata instead of posting it again, so
the thread shows one answer, stored under the ts Slack gave it (reactions on it count).
"""

from __future__ import annotations

import pytest

from bot.app import Answerer
from bot.store import SQLiteAnswerStore
from retrieval.config import Config
from tests.bot.conftest import TEAM
from tests.bot.e2e import ask, run
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
