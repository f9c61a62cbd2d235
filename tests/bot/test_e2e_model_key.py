"""A model server whose 401 quotes the configured key, whatever its form: the key reaches neither
Slack, nor the serve log, nor the answer store (the admins still get the HTTP status)."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

import pytest

from bot.app import Answerer
from bot.runtime import make_pipeline
from bot.store import SQLiteAnswerStore
from grounding.generators.openai_gen import OpenAIGenerator, make_openai_client
from retrieval.config import Config
from retrieval.index import Index
from tests.bot.conftest import TEAM
from tests.bot.e2e import ask, posted_ts, reply_text, until
from tests.bot.harness import GENERAL, fake_slack, running_app, with_channels
from tests.grounding.fake_openai import FakeOpenAI, http_error

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
            client = make_openai_client(KEY, server.base_url, 5.0, 0)
            pipeline = make_pipeline(config, index, OpenAIGenerator(client, "gpt-test"))
            async with (
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
    assert record is not None and record.answer["status"] == "error"
    assert "HTTP 401" in record.answer["error_detail"]
    assert SECRET_PART not in str(record.answer)
    for path in tmp_path.iterdir():  # the database and any journal it left, byte for byte
        assert SECRET_PART.encode() not in path.read_bytes(), path.name
    assert caplog.records
    leaked = [r.getMessage() for r in caplog.records if SECRET_PART in r.getMessage()]
    assert leaked == []
    assert not [r for r in caplog.records if r.exc_text and SECRET_PART in r.exc_text]
