"""`run_serve` end to end: Socket Mode and HTTP mode against the fake Slack, shutdown while an
answer is in progress, and start-up checks of the credentials.
"""

from __future__ import annotations

import asyncio
import contextlib

import aiohttp
import pytest
from pydantic import SecretStr

from bot.app import Answerer
from bot.serve import run_serve
from bot.settings import SettingsError
from bot.store import SQLiteAnswerStore
from retrieval.config import Config
from tests.bot import payloads
from tests.bot.e2e import (
    LogSignal,
    SlowAnswerer,
    ask,
    reply_text,
    until,
)
from tests.bot.harness import (
    GENERAL,
    fake_slack,
    mention,
    post_event,
    settings_for,
    socket_settings,
    with_channels,
)
from tests.ports import free_port, listening


def test_serve_socket_mode_answers_an_envelope_once(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    config, answerer = indexed

    async def main() -> None:
        async with fake_slack() as slack:
            payload = mention("how do I roll back a deploy?", channel=GENERAL,
                              ts="1610241741.000200", event_id="EvSOCKET",
                              bot_user_id=slack.bot_user_id)  # fmt: skip
            envelope = payloads.socket_mode_envelope(payload, envelope_id="first")
            settings = socket_settings(slack)
            server = asyncio.create_task(run_serve(config, settings, answerer, store, port=0))
            with_channels(slack)
            slack.push_socket(envelope)
            # Socket Mode redelivers with retry_attempt 1: the store, not the counter, decides.
            slack.push_socket(
                payloads.socket_mode_envelope(payload, envelope_id="second", retry_attempt=1)
            )
            (post,) = await slack.wait_for("chat.postMessage", timeout=10)
            await until(lambda: len(slack.socket_acks) == 2)
            server.cancel()  # run_serve drains the handlers in progress before it returns
            with contextlib.suppress(asyncio.CancelledError):
                await server
            assert post.params["thread_ts"] == "1610241741.000200"
            assert "deploy/rollback.md" in reply_text(post)
            assert len(slack.calls_to("chat.postMessage")) == 1
            assert {a["envelope_id"] for a in slack.socket_acks} == {"first", "second"}

    asyncio.run(main())


def test_serve_http_mode_listens_on_slack_events_until_cancelled(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    config, answerer = indexed
    challenge = payloads.url_verification("Jhj5dZrVaK7ZwHHjRyZWjbDl3eZbrw1a")
    port = free_port()

    async def main() -> None:
        async with fake_slack() as slack:
            server = asyncio.create_task(
                run_serve(config, settings_for(slack), answerer, store, port=port, host="127.0.0.1")
            )
            await slack.wait_for("auth.test")  # the start-up token check
            url = f"http://127.0.0.1:{port}/slack/events"
            async with aiohttp.ClientSession() as session:
                await until(lambda: listening(port))
                status, text = await post_event(session, url, challenge)
                async with session.get(f"http://127.0.0.1:{port}/healthz") as health:
                    assert health.status == 200
            server.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await server
            assert status == 200 and challenge["challenge"] in text
            assert not listening(port)

    asyncio.run(main())


def test_serve_shutdown_lets_an_answer_in_progress_post_its_reply(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    """Cancelled mid-answer (Ctrl-C), run_serve returns only after the reply was posted.

    The answer is held until run_serve says it is draining, so it is surely in progress then."""
    config, real = indexed
    port = free_port()

    async def main() -> None:
        with LogSignal("docbot.serve", "answer(s) in progress") as draining:
            slow = SlowAnswerer(real, seconds=5, release=draining.event)
            await shut_down_mid_answer(slow, draining)

    async def shut_down_mid_answer(slow: SlowAnswerer, draining: LogSignal) -> None:
        async with fake_slack() as slack:
            server = asyncio.create_task(run_serve(
                config, settings_for(with_channels(slack)), slow, store, port=port,
                host="127.0.0.1",
            ))  # fmt: skip
            await until(lambda: listening(port))
            async with aiohttp.ClientSession() as session:
                url = f"http://127.0.0.1:{port}/slack/events"
                await post_event(session, url, ask(slack, "how do I roll back?", GENERAL, "23.1"))
            await asyncio.wait_for(slow.started.wait(), 5)
            server.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await server
            assert draining.event.is_set()  # the answer was released by the drain
            assert [c.params["thread_ts"] for c in slack.posted()] == ["23.1"]

    asyncio.run(main())


def test_serve_refuses_to_start_with_bad_credentials(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    config, answerer = indexed

    async def main() -> None:
        async with fake_slack() as slack:
            good = settings_for(slack)
            with pytest.raises(SettingsError, match="SLACK_SIGNING_SECRET is not set"):
                await run_serve(config, good.model_copy(update={"slack_signing_secret": None}),
                                answerer, store, port=0)  # fmt: skip
            wrong = good.model_copy(update={"slack_bot_token": SecretStr("xoxb-revoked")})
            with pytest.raises(
                SettingsError, match=r"Slack rejected SLACK_BOT_TOKEN \(invalid_auth"
            ):
                await run_serve(config, wrong, answerer, store, port=0)
            socket = good.model_copy(update={"slack_app_token": SecretStr("xapp-revoked")})
            with pytest.raises(SettingsError, match=r"Slack rejected SLACK_APP_TOKEN"):
                await run_serve(config, socket, answerer, store, port=0)

    asyncio.run(main())
