"""Answers streamed one verified claim at a time (bot/streaming.py): the real Bolt app over signed
HTTP, the real pipeline and OpenAI client against the fake model server (paced, streaming), the
fake Slack recording every chat.startStream / appendStream / stopStream."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable

from slack_sdk.web.async_client import AsyncWebClient

from bot.app import Answerer
from bot.events import Turn
from bot.render.live import WORKING
from bot.replies import posted_reply
from bot.runtime import make_pipeline
from bot.store import SQLiteAnswerStore
from grounding.generators.openai_gen import OpenAIGenerator, make_openai_client
from retrieval.config import Config
from retrieval.index import Index
from tests.bot.conftest import TEAM
from tests.bot.e2e import ask, posted_ts, reply_text, run, until
from tests.bot.fake_slack import Call, FakeSlack
from tests.bot.harness import ASKER, GENERAL, RunningApp, fake_slack, running_app, with_channels
from tests.grounding.fake_openai import FakeOpenAI, Reply, answer, loopback_http_client, paced

QUESTION = "how do I roll back a deploy?"
WHEN = "Roll back when the error rate doubles within thirty minutes of a deploy."
HOW = "Run `make rollback ENV=production` to return to the previous release."
# Quotes the evidence, then says what it does not (no "5" there): verification drops it.
WRONG = "Roll back when the error rate doubles within 5 minutes of a deploy."
CLAIMS = [
    (WHEN, ["E1"], [WHEN]),
    (WRONG, ["E1"], ["Roll back when the error rate doubles"]),
    (HOW, ["E1"], [HOW]),
]
STREAM_METHODS = ("chat.startStream", "chat.appendStream", "chat.stopStream")
Scenario = Callable[[FakeSlack, RunningApp, FakeOpenAI], Awaitable[None]]


def _run(config: Config, store: SQLiteAnswerStore, reply: Reply, scenario: Scenario) -> None:
    async def main() -> None:
        async with FakeOpenAI() as server:
            server.always("responses", reply)
            client = make_openai_client("sk-test", server.base_url,
                                        http_client=loopback_http_client())  # fmt: skip
            pipeline = make_pipeline(config, Index.load(config), OpenAIGenerator(client, "gpt"))
            async with (
                fake_slack() as slack,
                running_app(with_channels(slack), config, pipeline, store) as app,
            ):
                await scenario(slack, app, server)
            await client.close()

    asyncio.run(main())


def _streamed(slack: FakeSlack) -> list[Call]:
    return [c for c in slack.calls if c.method in STREAM_METHODS]


def _texts(blocks: list[dict[str, object]]) -> str:
    return json.dumps(blocks)


def test_stream_appends_each_verified_claim_and_never_a_dropped_one(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    config, _ = indexed

    async def scenario(slack: FakeSlack, app: RunningApp, server: FakeOpenAI) -> None:
        await app.send(ask(slack, QUESTION, GENERAL, "50.000100"))
        (stop,) = await slack.wait_for("chat.stopStream", timeout=10)
        await app.settle()
        start, append = slack.calls_to("chat.startStream")[0], slack.calls_to("chat.appendStream")
        assert start.params["thread_ts"] == "50.000100"
        assert (start.params["recipient_user_id"], start.params["recipient_team_id"]) == (
            ASKER, TEAM,
        )  # fmt: skip
        assert "thirty minutes" in _texts(start.params["chunks"])
        assert len(append) == 1 and "make rollback" in _texts(append[0].params["chunks"])
        # The dropped claim reached no streamed call, not even for a moment.
        assert all("5 minutes" not in c.body for c in _streamed(slack))
        assert "Sources" in _texts(stop.params["blocks"]) and "feedback" in stop.body
        assert stop.params["metadata"]["event_payload"] == {"question_ts": "50.000100"}
        assert slack.posted() == []  # one message: the stream
        message = slack.message(GENERAL, posted_ts(stop))
        assert message is not None and message["streaming_state"] == "completed"
        record = store.find_answer(TEAM, GENERAL, posted_ts(stop))
        assert record is not None and [c.text for c in record.answer.claims] == [WHEN, HOW]
        assert record.answer.dropped_claims[0].text == WRONG
        # The status came first and stopped before the stream began.
        assert slack.statuses()[0] == WORKING.text
        assert all(c.at <= start.at for c in slack.calls_to("assistant.threads.setStatus"))

    _run(config, store, paced(0.4, answer(CLAIMS)), scenario)


def test_stream_start_failure_falls_back_to_one_whole_post(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    """An older workspace (or a 500 before Slack started it: a start is not retried blind, and
    the thread shows no stream): the whole answer goes out as today's single post, once; a
    refusal in Slack's words is remembered."""
    config, _ = indexed

    async def scenario(slack: FakeSlack, app: RunningApp, server: FakeOpenAI) -> None:
        slack.fail_next("chat.startStream", 500)
        await app.send(ask(slack, QUESTION, GENERAL, "51.000100"))
        (post,) = await slack.wait_for("chat.postMessage", timeout=10)
        await app.settle()
        assert WHEN in reply_text(post) and "make rollback" in reply_text(post)
        assert "5 minutes" not in reply_text(post) and "Sources" in reply_text(post)
        assert [c.method for c in _streamed(slack)] == ["chat.startStream"]
        assert store.find_answer(TEAM, GENERAL, posted_ts(post)) is not None
        slack.refuse("chat.startStream", "not_allowed")
        await app.send(ask(slack, QUESTION, GENERAL, "51.000200"))
        await app.settle(timeout=10)
        await app.send(ask(slack, QUESTION, GENERAL, "51.000300"))
        await app.settle(timeout=10)
        assert len(slack.calls_to("chat.startStream")) == 2  # refused once, then not asked
        assert len(slack.posted()) == 3

    _run(config, store, paced(0.1, answer(CLAIMS)), scenario)


def test_stream_append_failure_sends_the_claim_with_the_stop(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    config, _ = indexed

    async def scenario(slack: FakeSlack, app: RunningApp, server: FakeOpenAI) -> None:
        slack.fail_next("chat.appendStream", 500, count=3)
        await app.send(ask(slack, QUESTION, GENERAL, "52.000100"))
        (stop,) = await slack.wait_for("chat.stopStream", timeout=10)
        await app.settle()
        assert "make rollback" in _texts(stop.params["chunks"])
        message = slack.message(GENERAL, posted_ts(stop))
        assert message is not None
        shown = _texts(message["blocks"])
        assert shown.count("thirty minutes") == 1 and shown.count("make rollback") == 1
        assert slack.posted() == []

    _run(config, store, paced(0.2, answer(CLAIMS)), scenario)


def test_stream_stop_failure_writes_the_whole_answer_into_the_message(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    config, _ = indexed

    async def scenario(slack: FakeSlack, app: RunningApp, server: FakeOpenAI) -> None:
        slack.fail_next("chat.stopStream", 500, count=3)
        await app.send(ask(slack, QUESTION, GENERAL, "53.000100"))
        (update,) = await slack.wait_for("chat.update", timeout=10)
        await app.settle()
        ts = slack.calls_to("chat.startStream")[0].response["ts"]
        assert update.params["ts"] == ts and "Sources" in reply_text(update)
        assert update.params["metadata"]["event_payload"] == {"question_ts": "53.000100"}
        assert slack.posted() == [] and store.find_answer(TEAM, GENERAL, ts) is not None

    _run(config, store, paced(0.1, answer(CLAIMS)), scenario)


def test_stream_never_starts_when_no_claim_survives(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    config, _ = indexed

    async def scenario(slack: FakeSlack, app: RunningApp, server: FakeOpenAI) -> None:
        await app.send(ask(slack, QUESTION, GENERAL, "54.000100"))
        (post,) = await slack.wait_for("chat.postMessage", timeout=10)
        await app.settle()
        assert ":mag:" in reply_text(post) and "5 minutes" not in reply_text(post)
        assert _streamed(slack) == []

    _run(config, store, paced(0.1, answer([CLAIMS[1]])), scenario)


def test_stream_cut_off_before_its_stop_is_found_by_a_run_taking_over() -> None:
    """A crash mid-stream leaves a message without metadata: its first block's marker is how a
    takeover knows the question was answered (bot/replies.py posted_reply)."""
    turn = Turn("Ev55", TEAM, GENERAL, "55.000100", None, ASKER, QUESTION, "channel", False)

    async def main() -> None:
        async with fake_slack() as slack:
            client = AsyncWebClient(token=slack.token, base_url=slack.url)
            assert await posted_reply(client, turn) is None
            started = await client.chat_startStream(
                channel=GENERAL, thread_ts=turn.ts,
                chunks=[{"type": "blocks", "blocks": [
                    {"type": "section", "block_id": "docbot_reply:55.000100",
                     "text": {"type": "mrkdwn", "text": "• claim"}}]}],
            )  # fmt: skip
            await until(lambda: slack.message(GENERAL, str(started["ts"])) is not None)
            assert await posted_reply(client, turn) == started["ts"]

    asyncio.run(main())


def test_offline_answer_is_one_post_without_a_stream(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    """The extractive generator answers at once: no stream, status then one post."""
    config, answerer = indexed

    async def scenario(slack: FakeSlack, app: RunningApp) -> None:
        await app.send(ask(slack, QUESTION, GENERAL, "56.000100"))
        (post,) = await slack.wait_for("chat.postMessage")
        await app.settle()
        assert "Sources" in reply_text(post) and _streamed(slack) == []
        assert slack.statuses()[0] == WORKING.text

    run(config, answerer, store, scenario)
