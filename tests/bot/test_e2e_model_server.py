"""The Slack app with the real OpenAIGenerator and a model server that misbehaves.

A 401 quoting the configured key, whatever its form: the key reaches neither Slack, nor the serve
log, nor the answer store (the admins still get the HTTP status). A server that hangs: one error
reply at the answer's deadline, stored once. A server that answers garbage: one error reply, and
the app goes on answering.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

import pytest
from pydantic import SecretStr

from bot.app import Answerer
from bot.runtime import make_generator, make_pipeline
from bot.settings import Settings
from bot.store import SQLiteAnswerStore
from grounding.generators.openai_gen import OpenAIGenerator, make_openai_client
from retrieval.config import Config
from retrieval.index import Index
from tests.bot.conftest import TEAM
from tests.bot.e2e import ask, posted_ts, reply_text, until
from tests.bot.harness import GENERAL, fake_slack, running_app, with_channels
from tests.grounding.fake_clock import FakeClock
from tests.grounding.fake_openai import (
    FakeOpenAI,
    answer,
    hang,
    http_error,
    loopback_http_client,
    raw_body,
)

KEY = "test-REDTEAMKEY-42"
SECRET_PART = "REDTEAM"


def test_app_model_key_echoed_by_the_server_stays_out_of_log_store_and_slack(
    indexed: tuple[Config, Answerer],
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    config, _ = indexed
    index = Index.load(config)
    store_file = tmp_path / "answers.sqlite3"
    store = SQLiteAnswerStore(store_file)

    async def main() -> str:
        async with FakeOpenAI() as server:
            server.always("responses", http_error(401, f"Incorrect API key provided: {KEY}"))
            client = make_openai_client(KEY, server.base_url, http_client=loopback_http_client())
            pipeline = make_pipeline(config, index, OpenAIGenerator(client, "gpt-test"))
            async with (
                client,
                fake_slack() as slack,
                running_app(with_channels(slack), config, pipeline, store) as app,
            ):
                await app.send(ask(slack, "how do I roll back a deploy?", GENERAL, "31.000100"))
                (post,) = await slack.wait_for("chat.postMessage", timeout=10)
                await until(lambda: store.find_answer(TEAM, GENERAL, posted_ts(post)) is not None)
                assert SECRET_PART not in slack.all_text()
                assert ":warning:" in reply_text(post)
                return posted_ts(post)

    try:
        with caplog.at_level(logging.DEBUG):
            reply_ts = asyncio.run(main())
        record = store.find_answer(TEAM, GENERAL, reply_ts)
    finally:
        store.close()
    assert record is not None and record.answer.status == "error"
    assert "HTTP 401" in record.answer.error_detail
    assert SECRET_PART not in str(record.answer)
    for path in tmp_path.iterdir():  # the database and any journal it left, byte for byte
        assert SECRET_PART.encode() not in path.read_bytes(), path.name
    assert caplog.records
    leaked = [r.getMessage() for r in caplog.records if SECRET_PART in r.getMessage()]
    assert leaked == []
    assert not [r for r in caplog.records if r.exc_text and SECRET_PART in r.exc_text]


def test_app_hanging_model_gets_one_error_reply_at_the_deadline(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    """Generator and pipeline as `docbot serve` builds them from docbot.yml, on a fake clock."""
    config, _ = indexed
    answer_config = config.answer.model_copy(
        update={"generator": "openai", "deadline_seconds": 20.0, "timeout_seconds": 20.0}
    )
    config = config.model_copy(update={"answer": answer_config})
    clock = FakeClock()

    async def main() -> None:
        async with FakeOpenAI(on_request=lambda _: clock.advance(21.0)) as server:
            server.always("responses", hang())
            settings = Settings(
                openai_api_key=SecretStr("sk-test"), openai_base_url=server.base_url
            )
            generator = make_generator(config.answer, settings)
            pipeline = make_pipeline(config, Index.load(config), generator, clock)
            async with (
                fake_slack() as slack,
                running_app(with_channels(slack), config, pipeline, store) as app,
            ):
                await app.send(ask(slack, "how do I roll back a deploy?", GENERAL, "32.000100"))
                (post,) = await slack.wait_for("chat.postMessage", timeout=10)
                await until(lambda: store.find_answer(TEAM, GENERAL, posted_ts(post)) is not None)
                await app.settle()
                assert len(slack.calls_to("chat.postMessage")) == 1
            assert len(server.requests) == 1  # the hang was not retried
        assert "took too long" in reply_text(post)
        record = store.find_answer(TEAM, GENERAL, posted_ts(post))
        assert record is not None and record.answer.status == "error"
        assert "answer.deadline_seconds: 20 s" in record.answer.error_detail

    asyncio.run(main())


def test_app_garbage_from_the_model_is_one_error_reply_and_the_app_goes_on(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    config, _ = indexed
    paging = (
        "Acknowledge a page within five minutes, or it escalates to the secondary on-call engineer."
    )

    async def main() -> None:
        async with FakeOpenAI() as server:
            server.script(
                "responses",
                raw_body("<html>502 Bad Gateway</html>", content_type="text/html"),
                answer([(paging, ["E1"])]),
            )
            client = make_openai_client(
                "sk-test", server.base_url, http_client=loopback_http_client()
            )
            pipeline = make_pipeline(config, Index.load(config), OpenAIGenerator(client, "gpt"))
            async with (
                client,
                fake_slack() as slack,
                running_app(with_channels(slack), config, pipeline, store) as app,
            ):
                question = "how fast must I acknowledge a page?"
                await app.send(ask(slack, question, GENERAL, "33.000100"))
                (first,) = await slack.wait_for("chat.postMessage", timeout=10)
                await app.send(ask(slack, question, GENERAL, "33.000200"))
                # The good answer is streamed (bot/streaming.py): its message ends with the stop.
                (second,) = await slack.wait_for("chat.stopStream", timeout=10)
                replies = [posted_ts(first), posted_ts(second)]
                await until(lambda: all(store.find_answer(TEAM, GENERAL, r) for r in replies))
                assert len(slack.calls_to("chat.postMessage")) == 1
                assert len(slack.calls_to("chat.startStream")) == 1
            assert len(server.requests) == 2
        assert "could not produce a valid answer" in reply_text(first)
        broken, good = (store.find_answer(TEAM, GENERAL, posted_ts(p)) for p in (first, second))
        assert broken is not None and broken.answer.status == "error"
        assert "the body is not JSON" in broken.answer.error_detail
        assert good is not None and good.answer.status == "answered"

    asyncio.run(main())
