"""docbot's own parts failing end to end: the store, the model server and the answerer; the
asker gets a reply, the admins get the detail, nothing escapes to Bolt.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, NoReturn, cast

import pytest

from bot.app import Answerer
from bot.runtime import make_pipeline
from bot.store import AnswerStore, SQLiteAnswerStore, StoreError
from grounding.generators.openai_gen import OpenAIGenerator, make_openai_client
from retrieval.config import Config
from retrieval.index import Index
from tests.bot.conftest import TEAM
from tests.bot.e2e import (
    ExplodingAnswerer,
    as_channel_message,
    ask,
    posted_ts,
    reply_text,
    run,
    until,
)
from tests.bot.fake_slack import FakeSlack
from tests.bot.harness import (
    GENERAL,
    RunningApp,
    fake_slack,
    reaction,
    running_app,
    with_channels,
)
from tests.grounding.fake_openai import FakeOpenAI, http_error


class FailingStore:
    """The real store, except that the named methods fail as a locked or full database does."""

    def __init__(self, inner: SQLiteAnswerStore, *failing: str) -> None:
        self.inner = inner
        self.failing = set(failing)

    def __getattr__(self, name: str) -> Any:
        if name in self.failing:

            def fail(*args: object) -> NoReturn:
                raise StoreError(f"cannot write {self.inner.path}: database is locked")

            return fail
        return getattr(self.inner, name)


def test_app_store_failure_on_a_question_is_told_to_the_asker(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore, caplog: pytest.LogCaptureFixture
) -> None:
    config, answerer = indexed
    broken = cast(AnswerStore, FailingStore(store, "claim"))

    async def scenario(slack: FakeSlack, app: RunningApp) -> None:
        await app.send(ask(slack, "how do I roll back a deploy?", GENERAL, "21.000100"))
        (post,) = await slack.wait_for("chat.postMessage")
        assert "something went wrong on my side" in reply_text(post)
        assert post.params["thread_ts"] == "21.000100"

    with caplog.at_level(logging.ERROR):
        run(config, answerer, broken, scenario)
    assert any("Ev21000100" in r.getMessage() for r in _errors(caplog, "docbot.slack"))
    assert _errors(caplog, "docbot.slack.bolt") == []  # nothing escaped to Bolt


def test_app_store_failure_on_a_reaction_is_logged_not_raised(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore, caplog: pytest.LogCaptureFixture
) -> None:
    config, answerer = indexed
    broken = cast(AnswerStore, FailingStore(store, "find_answer", "pending_reason"))

    async def scenario(slack: FakeSlack, app: RunningApp) -> None:
        await app.send(reaction(True, "x", channel=GENERAL, item_ts="22.000200", event_id="EvX22"))
        reason = ask(slack, "it is wrong", GENERAL, "22.000300", thread_ts="22.000100")
        await app.send(as_channel_message(reason, "EvMSG22"))
        await until(lambda: len(_errors(caplog, "docbot.slack")) >= 2)
        await app.settle()

    with caplog.at_level(logging.ERROR):
        run(config, answerer, broken, scenario)
    logged = " ".join(r.getMessage() for r in _errors(caplog, "docbot.slack"))
    assert "EvX22" in logged and "EvMSG22" in logged
    assert _errors(caplog, "docbot.slack.bolt") == []


def _errors(caplog: pytest.LogCaptureFixture, logger: str) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == logger and r.levelno >= logging.ERROR]


def test_app_openai_failure_gets_an_error_reply(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    """The real OpenAIGenerator against the fake OpenAI server answering 500."""
    config, _ = indexed
    index = Index.load(config)

    async def main() -> None:
        async with FakeOpenAI() as openai_server:
            openai_server.always("responses", http_error(500))
            client = make_openai_client("sk-test", openai_server.base_url)
            generator = OpenAIGenerator(client, "gpt-test", max_retries=0)
            pipeline = make_pipeline(config, index, generator)
            async with (
                client,
                fake_slack() as slack,
                running_app(with_channels(slack), config, pipeline, store) as app,
            ):
                await app.send(ask(slack, "how do I roll back a deploy?", GENERAL, "14.000100"))
                (post,) = await slack.wait_for("chat.postMessage", timeout=10)
                await app.settle()
            assert openai_server.bodies("responses")  # the model was really asked
        assert ":warning:" in reply_text(post)
        (record,) = [store.find_answer(TEAM, GENERAL, posted_ts(post))]
        assert record is not None and record.answer.status == "error"

    asyncio.run(main())


def test_app_openai_auth_failure_reply_carries_no_key_or_admin_advice(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    """A 401 body quoting part of the API key stays in the log and the store, out of Slack."""
    config, _ = indexed
    index = Index.load(config)
    body = "Incorrect API key provided: sk-proj-AbCdEf****************wxyz. Check OPENAI_API_KEY."

    async def main() -> None:
        async with FakeOpenAI() as openai_server:
            openai_server.always("responses", http_error(401, body, code="invalid_api_key"))
            client = make_openai_client("sk-proj-AbCdEf0123456789wxyz", openai_server.base_url)
            pipeline = make_pipeline(config, index, OpenAIGenerator(client, "gpt-test"))
            async with (
                client,
                fake_slack() as slack,
                running_app(with_channels(slack), config, pipeline, store) as app,
            ):
                await app.send(ask(slack, "how do I roll back a deploy?", GENERAL, "24.000100"))
                (post,) = await slack.wait_for("chat.postMessage", timeout=10)
                # The answer is stored just after the post returns.
                await until(lambda: store.find_answer(TEAM, GENERAL, posted_ts(post)) is not None)
                sent = slack.all_text()
        for leak in ("sk-", "AbCdEf", "wxyz", "OPENAI_API_KEY", "401"):
            assert leak not in sent and leak not in reply_text(post), leak
        # A rejected key lasts until an admin replaces it: no "try again in a minute".
        assert ":warning:" in reply_text(post) and "a docbot admin has to fix" in reply_text(post)
        assert "try again in a minute" not in reply_text(post).lower()
        record = store.find_answer(TEAM, GENERAL, posted_ts(post))
        assert record is not None and record.answer.status == "error"
        assert "401" in record.answer.error_detail  # the admins keep the detail

    asyncio.run(main())


def test_app_answerer_failure_and_long_question_get_replies_not_silence(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    config, _ = indexed

    async def scenario(slack: FakeSlack, app: RunningApp) -> None:
        await app.send(ask(slack, "how do I roll back?", GENERAL, "12.000100"))
        await app.send(ask(slack, "why? " * 900, GENERAL, "12.000200"))
        posts = await slack.wait_for("chat.postMessage", 2)
        by_thread = {c.params["thread_ts"]: reply_text(c) for c in posts}
        assert "something went wrong on my side" in by_thread["12.000100"]
        too_long = by_thread["12.000200"]
        assert "4,499 characters long" in too_long and "up to 4,000" in too_long
        # Nothing failed: the asker is told what to change, not to retry or call an admin.
        assert "try again" not in too_long.lower() and "admin" not in too_long
        await app.settle()

    run(config, ExplodingAnswerer(), store, scenario)
