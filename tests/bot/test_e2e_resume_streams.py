"""A resumed question and streaming: a run taking over never streams (what the dead run showed
must not show twice), and a stream the dead run left unfinished is where its answer goes."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
from slack_sdk.web.async_client import AsyncWebClient

from bot.app import Answerer, InFlight, build_app
from bot.resume import Resumer
from bot.runtime import make_pipeline
from bot.store import LEASE_SECONDS, MentionKey, SQLiteAnswerStore
from grounding.generators.openai_gen import OpenAIGenerator, make_openai_client
from retrieval.config import Config
from retrieval.index import Index
from tests.bot.conftest import TEAM
from tests.bot.fake_slack import FakeSlack
from tests.bot.harness import GENERAL, fake_slack, settings_for, with_channels
from tests.bot.store.conftest import FakeClock
from tests.bot.test_e2e_resume import DEAD, _acknowledged_then_killed
from tests.grounding.fake_openai import FakeOpenAI, answer, loopback_http_client, paced

WHEN = "Roll back when the error rate doubles within thirty minutes of a deploy."
STREAMED = ("chat.startStream", "chat.appendStream", "chat.stopStream")


async def _resume(
    config: Config, store: SQLiteAnswerStore, clock: FakeClock, slack: FakeSlack
) -> FakeOpenAI:
    async with FakeOpenAI() as server:
        server.always("responses", paced(0.2, answer([(WHEN, ["E1"], [WHEN])])))
        client = make_openai_client("sk-test", server.base_url, http_client=loopback_http_client())
        pipeline = make_pipeline(config, Index.load(config), OpenAIGenerator(client, "gpt"))
        in_flight, resumer = InFlight(), Resumer()
        build_app(settings_for(with_channels(slack)), pipeline, store, config=config,
                  in_flight=in_flight, resumer=resumer)  # fmt: skip
        clock.now += LEASE_SECONDS + 1
        assert await resumer.sweep() == 1
        await in_flight.drain(10)
        await client.close()
        return server


@pytest.fixture
def clocked(tmp_path: Path) -> Iterator[tuple[SQLiteAnswerStore, FakeClock]]:
    """A store on a fake clock, closed after the test even when an assertion fails."""
    clock = FakeClock()
    store = SQLiteAnswerStore(tmp_path / "s.db", clock=clock)
    yield store, clock
    store.close()


def test_resumed_question_is_posted_once_not_streamed(
    indexed: tuple[Config, Answerer], clocked: tuple[SQLiteAnswerStore, FakeClock]
) -> None:
    config, _ = indexed
    store, clock = clocked

    async def main() -> None:
        async with fake_slack() as slack:
            _acknowledged_then_killed(store, "70.000100", slack.bot_user_id)
            server = await _resume(config, store, clock, slack)
            assert len(server.requests) == 1  # the model was asked
            assert [c.method for c in slack.calls if c.method in STREAMED] == []
            (post,) = slack.posted()
            assert WHEN in str(post.params["blocks"])

    asyncio.run(main())


def test_stream_left_unfinished_by_a_dead_run_is_finished_in_place_not_posted_again(
    indexed: tuple[Config, Answerer], clocked: tuple[SQLiteAnswerStore, FakeClock]
) -> None:
    config, _ = indexed
    store, clock = clocked

    async def main() -> None:
        async with fake_slack() as slack:
            _acknowledged_then_killed(store, "71.000100", slack.bot_user_id)
            # The dead run had begun posting: its stream's first claim is in the thread.
            assert store.begin_post(MentionKey(TEAM, GENERAL, "71.000100"), DEAD)
            web = AsyncWebClient(token=slack.token, base_url=slack.url)
            started = await web.chat_startStream(channel=GENERAL, thread_ts="71.000100", chunks=[
                {"type": "blocks", "blocks": [{"type": "section", "block_id":
                 "docbot_reply:71.000100", "text": {"type": "mrkdwn", "text": "• " + WHEN}}]},
            ])  # fmt: skip
            before = len(slack.calls)
            server = await _resume(config, store, clock, slack)
            # Answered again, into the same message: no second reply (test_e2e_stream_cut_by_crash).
            assert len(server.requests) == 1
            chat = [c for c in slack.calls[before:] if c.method.startswith("chat.")]
            assert [c.method for c in chat] == ["chat.stopStream", "chat.update"]
            assert chat[1].params["ts"] == started["ts"]

    asyncio.run(main())
