"""Slack answering with something that is not its JSON (a proxy's 500 HTML page, text, or an
HTML body labelled as JSON): every handler reads the error through bot.webapi.slack_error and
goes on as it would for any failed call. The real app over signed HTTP, the fake Slack."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest

from bot.app import Answerer
from bot.listeners import InFlight
from bot.store import SQLiteAnswerStore
from retrieval.config import Config
from tests.bot.conftest import CANARY, PAYMENTS_CHANNEL, TEAM
from tests.bot.e2e import ask, reply_text
from tests.bot.fake_slack import FakeSlack
from tests.bot.harness import GENERAL, RunningApp, fake_slack, running_app, with_channels

HTML = "<html><head><title>500 Internal Server Error</title></head><body>nginx</body></html>"
# How a proxy's page reaches slack_sdk: as HTML (an empty dict), as text (a str body), or
# labelled JSON (no SlackResponse at all: aiohttp's own response object).
CONTENT_TYPES = ["text/html", "text/plain", "application/json"]
ALWAYS = 1_000  # every call of the method fails, however often the client retries
DRAIN_SECONDS = 20.0


async def _finished(in_flight: InFlight) -> None:
    """Every handler started so far has ended: nothing more will be posted."""
    await in_flight.drain(DRAIN_SECONDS)
    assert in_flight.pending() == 0


@asynccontextmanager
async def _app(
    config: Config, answerer: Answerer, store: SQLiteAnswerStore, in_flight: InFlight
) -> AsyncIterator[tuple[FakeSlack, RunningApp]]:
    async with (
        fake_slack() as slack,
        running_app(with_channels(slack), config, answerer, store, in_flight=in_flight) as app,
    ):
        yield slack, app


@pytest.mark.parametrize("content_type", CONTENT_TYPES)
def test_app_html_500_on_conversations_info_fails_closed_with_the_right_reply(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore, content_type: str
) -> None:
    config, answerer = indexed
    in_flight = InFlight()

    async def main() -> None:
        async with _app(config, answerer, store, in_flight) as (slack, app):
            slack.fail_next("conversations.info", 500, ALWAYS, body=HTML, content_type=content_type)
            vault = "what is the secret phrase for the payments vault?"
            await app.send(ask(slack, vault, PAYMENTS_CHANNEL, "81.000100"))
            await app.send(ask(slack, "how do I roll back a deploy?", GENERAL, "81.000200"))
            await slack.wait_for("chat.postMessage", 2, timeout=20)
            await _finished(in_flight)
            refused, public = sorted(slack.posted(), key=lambda c: c.params["thread_ts"])
            assert "could not verify this channel" in reply_text(refused)
            assert "went wrong" not in reply_text(refused) + reply_text(public)
            assert "deploy/rollback.md" in reply_text(public)
            assert "searched public collections only" in reply_text(public)
            assert CANARY not in slack.all_text()
            assert len(slack.calls_to("chat.postMessage")) == 2  # no error reply besides

    asyncio.run(main())


@pytest.mark.parametrize("content_type", CONTENT_TYPES)
def test_app_html_500_on_chat_post_message_keeps_the_stored_answer(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore, content_type: str
) -> None:
    config, answerer = indexed
    in_flight = InFlight()

    async def main() -> None:
        async with _app(config, answerer, store, in_flight) as (slack, app):
            slack.fail_next("chat.postMessage", 500, ALWAYS, body=HTML, content_type=content_type)
            await app.send(ask(slack, "how do I roll back a deploy?", GENERAL, "82.000100"))
            await slack.wait_for("chat.postMessage", timeout=20)
            await _finished(in_flight)
            assert slack.posted() == []
            record = store.find_answer(TEAM, GENERAL, "unposted:82.000100")
            assert record is not None and record.answer.status == "answered"

    asyncio.run(main())


@pytest.mark.parametrize("content_type", CONTENT_TYPES)
@pytest.mark.parametrize("method", ["reactions.add", "reactions.remove"])
def test_app_html_500_on_eyes_leaves_one_correct_reply(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore, method: str, content_type: str
) -> None:
    """The :eyes: is cosmetic: its failure must not add "Sorry, I could not answer"."""
    config, answerer = indexed
    in_flight = InFlight()

    async def main() -> None:
        async with _app(config, answerer, store, in_flight) as (slack, app):
            slack.refuse("assistant.threads.setStatus", "not_allowed")  # :eyes: instead
            slack.fail_next(method, 500, ALWAYS, body=HTML, content_type=content_type)
            await app.send(ask(slack, "how do I roll back a deploy?", GENERAL, "83.000100"))
            await slack.wait_for("chat.postMessage", timeout=20)
            await _finished(in_flight)
            (reply,) = slack.calls_to("chat.postMessage")
            assert "deploy/rollback.md" in reply_text(reply)
            assert "Sorry" not in reply_text(reply)
            assert store.find_answer(TEAM, GENERAL, str(reply.response["ts"])) is not None

    asyncio.run(main())
