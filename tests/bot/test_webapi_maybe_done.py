"""webapi.maybe_done: which failed Slack calls may have taken effect anyway (so a post must be
looked for, not repeated) and which are Slack's definite refusal; real slack_sdk calls against
the fake Slack Web API, one try each."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Callable

import aiohttp
import pytest
from slack_sdk.web.async_client import AsyncWebClient

from bot.webapi import SLACK_CALL_ERRORS, maybe_done
from tests.bot.fake_slack import FakeSlack
from tests.bot.harness import fake_slack

HTML = "<html><body><h1>502 Bad Gateway</h1></body></html>"


def _failure(script: Callable[[FakeSlack], None]) -> bool:
    async def main() -> bool:
        async with fake_slack() as slack:
            script(slack)
            client = AsyncWebClient(token=slack.token, base_url=slack.url, retry_handlers=[])
            try:
                await client.chat_postMessage(channel="C0GENERAL", text="hello")
            except SLACK_CALL_ERRORS as exc:
                return maybe_done(exc)
        raise AssertionError("the call did not fail")

    return asyncio.run(main())


@pytest.mark.parametrize(
    "script",
    [
        lambda s: s.lose_next_answer("chat.postMessage", 500),
        lambda s: s.lose_next_answer("chat.postMessage"),  # dropped connection
        lambda s: s.fail_next("chat.postMessage", 503),
        lambda s: s.fail_next("chat.postMessage", 502, body=HTML),  # a proxy's page
        lambda s: s.refuse("chat.postMessage", "internal_error"),  # HTTP 200, but unsure
    ],
    ids=["500-after-posting", "dropped", "503", "proxy-502", "internal_error"],
)
def test_a_failure_that_may_have_posted_is_maybe_done(script: Callable[[FakeSlack], None]) -> None:
    assert _failure(script) is True


@pytest.mark.parametrize("error", ["channel_not_found", "not_in_channel", "invalid_auth"])
def test_slacks_own_refusal_is_definite(error: str) -> None:
    assert _failure(lambda s: s.refuse("chat.postMessage", error)) is False


@pytest.mark.parametrize("retry_after", [1, None, "soon"])
def test_a_rate_limit_is_definite(retry_after: int | str | None) -> None:
    """Slack turns a rate-limited call away before acting on it (HTTP 429, `ratelimited`, and
    Retry-After "until you can retry"): that is why unrepeated retries it as it is, and why one
    that outlasts the retries leaves nothing to look for."""
    assert (
        _failure(lambda s: s.fail_next("chat.postMessage", 429, retry_after=retry_after)) is False
    )


def test_ratelimited_in_a_200_is_definite_too() -> None:
    assert _failure(lambda s: s.refuse("chat.postMessage", "ratelimited")) is False


def test_a_connection_never_made_is_definite() -> None:
    """Nothing listens on the port: the request never left, so there is nothing to look for
    (a look would fail the same way and leave an escalation "unconfirmed" for no reason)."""

    async def main() -> bool:
        with socket.socket() as probe:  # a port that was free a moment ago, now closed
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        client = AsyncWebClient(token="xoxb-x", base_url=f"http://127.0.0.1:{port}/api/",
                                retry_handlers=[])  # fmt: skip
        try:
            await client.chat_postMessage(channel="C0GENERAL", text="hello")
        except SLACK_CALL_ERRORS as exc:
            assert isinstance(exc, aiohttp.ClientConnectorError)
            return maybe_done(exc)
        raise AssertionError("the call did not fail")

    assert asyncio.run(main()) is False
