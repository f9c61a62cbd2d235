"""Failed Slack calls: a dropped connection is caught like any other, and every error reply,
Slack's JSON or a proxy's page, is read by one function (bot.webapi.slack_error)."""

from __future__ import annotations

import asyncio
import socket

import pytest
from slack_sdk.web.async_client import AsyncWebClient

from bot.events import parse_turn
from bot.replies import react as _react
from bot.serve import check_token
from bot.settings import SettingsError
from bot.webapi import SLACK_CALL_ERRORS, slack_error, slack_error_code
from retrieval.errors import DocbotError
from tests.bot import payloads
from tests.bot.harness import fake_slack


async def _hang_up(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    await reader.read(1)  # the request has started: drop the connection without a reply
    writer.close()


def test_webapi_dropped_connection_on_a_cosmetic_call_is_only_logged() -> None:
    body = payloads.app_mention(
        "how do I roll back?", team="T0DOCBOT", channel="C0GENERAL", user="U0ASKER",
        ts="1.000100", event_id="Ev1", bot_user_id="U0DOCBOT",
    )  # fmt: skip
    turn = parse_turn(body, "U0DOCBOT")
    assert turn is not None

    async def main() -> bool:
        server = await asyncio.start_server(_hang_up, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        client = AsyncWebClient(
            token="xoxb-test", base_url=f"http://127.0.0.1:{port}/api/", retry_handlers=[]
        )
        try:
            # aiohttp's ServerDisconnectedError is not an OSError: it used to escape here and
            # turn a failed :eyes: removal into an error reply to the asker.
            return await _react(client, "reactions_remove", turn)
        finally:
            server.close()
            await server.wait_closed()

    assert asyncio.run(main()) is False


@pytest.mark.parametrize(
    ("content_type", "says"),
    [
        ("text/html", "HTTP 502 without a Slack error code"),
        ("text/plain", "HTTP 502 that is not Slack's JSON: '<html><body>Bad gateway"),
        ("application/json", "HTTP 502 without a Slack error code"),
    ],
)
def test_slack_error_reads_a_reply_that_is_not_slacks_json(content_type: str, says: str) -> None:
    """A proxy's error page reaches slack_sdk as an empty dict, a str or aiohttp's response."""

    async def main() -> tuple[str, str | None]:
        async with fake_slack() as slack:
            body = "<html><body>Bad gateway</body></html>"
            slack.fail_next("reactions.add", 502, body=body, content_type=content_type)
            client = AsyncWebClient(token=slack.token, base_url=slack.url, retry_handlers=[])
            with pytest.raises(SLACK_CALL_ERRORS) as info:
                await client.reactions_add(channel="C1", timestamp="1.0", name="eyes")
            return slack_error(info.value), slack_error_code(info.value)

    error, code = asyncio.run(main())
    assert error.startswith(says) and code is None


def test_slack_error_reads_slacks_code_and_transport_failures() -> None:
    async def main() -> tuple[str, str | None]:
        async with fake_slack() as slack:
            client = AsyncWebClient(token="xoxb-wrong", base_url=slack.url, retry_handlers=[])
            with pytest.raises(SLACK_CALL_ERRORS) as info:
                await client.auth_test()
            return slack_error(info.value), slack_error_code(info.value)

    assert asyncio.run(main()) == ("invalid_auth", "invalid_auth")
    refused = ConnectionRefusedError(111, "Connection refused")
    assert slack_error(refused) == "connection refused" and slack_error_code(refused) is None
    assert slack_error(TimeoutError()) == "no answer in time (TimeoutError)"
    unknown_host = socket.gaierror(-2, "Name or service not known")
    assert slack_error(unknown_host) == "cannot resolve the host name"


def test_serve_start_up_unreachable_slack_names_the_address_and_why() -> None:
    """DOCBOT_SLACK_API_URL at a port nothing listens on: the error names where and why in
    words, not aiohttp's repr (`ClientConnectorError(ConnectionKey(host=..., proxy=None, ...`)."""
    with socket.socket() as bound:  # bound, never listening: connecting is refused
        bound.bind(("127.0.0.1", 0))
        port = bound.getsockname()[1]
        url = f"http://127.0.0.1:{port}/api/"
        client = AsyncWebClient(token="xoxb-test", base_url=url, retry_handlers=[])
        with pytest.raises(DocbotError) as info:
            asyncio.run(check_token(client))
    assert str(info.value) == (
        f"cannot reach the Slack Web API at {url} (cannot connect to 127.0.0.1:{port}: "
        "connection refused): check the network, or DOCBOT_SLACK_API_URL if it is set"
    )


def test_serve_start_up_calls_an_html_502_unreachable_not_a_rejected_token() -> None:
    async def main() -> None:
        async with fake_slack() as slack:
            slack.fail_next("auth.test", 502, body="<html>Bad gateway</html>")
            client = AsyncWebClient(token=slack.token, base_url=slack.url, retry_handlers=[])
            with pytest.raises(DocbotError, match="cannot reach the Slack Web API") as info:
                await check_token(client)
            assert not isinstance(info.value, SettingsError)
            assert "HTTP 502" in str(info.value)

    asyncio.run(main())
