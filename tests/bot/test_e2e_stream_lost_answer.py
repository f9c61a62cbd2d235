"""A stream Slack started but whose answer to chat.startStream was lost (a 500, a dropped
connection): docbot finds it in the thread by its first block's marker and streams into it, so
the thread shows one answer, not a cut-off stream and a whole post beside it.
"""

from __future__ import annotations

import json

import pytest

from bot.app import Answerer
from bot.store import SQLiteAnswerStore
from retrieval.config import Config
from tests.bot.conftest import TEAM
from tests.bot.e2e import ask, posted_ts
from tests.bot.fake_slack import FakeSlack
from tests.bot.harness import GENERAL, RunningApp
from tests.bot.test_e2e_streaming import CLAIMS, HOW, QUESTION, WHEN, _run
from tests.grounding.fake_openai import FakeOpenAI, answer, paced


@pytest.mark.parametrize("lost", [500, None], ids=["http-500", "dropped-connection"])
def test_stream_slack_started_without_saying_so_is_streamed_into(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore, lost: int | None
) -> None:
    config, _ = indexed

    async def scenario(slack: FakeSlack, app: RunningApp, server: FakeOpenAI) -> None:
        slack.lose_next_answer("chat.startStream", lost)
        await app.send(ask(slack, QUESTION, GENERAL, "52.000100"))
        (stop,) = await slack.wait_for("chat.stopStream", timeout=10)
        await app.settle()
        replies = [m for m in slack.messages[GENERAL] if m.get("thread_ts") == "52.000100"]
        assert len(replies) == 1 and slack.posted() == []
        assert len(slack.calls_to("chat.startStream")) == 1
        (message,) = replies
        assert message["ts"] == posted_ts(stop) and message["streaming_state"] == "completed"
        record = store.find_answer(TEAM, GENERAL, message["ts"])
        assert record is not None and [c.text for c in record.answer.claims] == [WHEN, HOW]

    _run(config, store, paced(0.2, answer(CLAIMS)), scenario)


def test_stream_append_slack_made_without_saying_so_shows_its_claim_once(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    """The append's claim went into the message but its answer was lost: not retried blind,
    its claim goes with the stop, and the message is then rewritten whole (chat.update)."""
    config, _ = indexed

    async def scenario(slack: FakeSlack, app: RunningApp, server: FakeOpenAI) -> None:
        slack.lose_next_answer("chat.appendStream", 500)
        await app.send(ask(slack, QUESTION, GENERAL, "53.000100"))
        (update,) = await slack.wait_for("chat.update", timeout=10)
        await app.settle()
        (stop,) = slack.calls_to("chat.stopStream")
        message = slack.message(GENERAL, posted_ts(stop))
        assert message is not None and slack.posted() == []
        shown = json.dumps(message["blocks"])
        assert shown.count("thirty minutes") == 1 and shown.count("make rollback") == 1
        assert update.params["metadata"]["event_payload"] == {"question_ts": "53.000100"}

    _run(config, store, paced(0.2, answer(CLAIMS)), scenario)
