"""A Slack call whose connection drops is caught like any other failed call."""

from __future__ import annotations

import asyncio

from slack_sdk.web.async_client import AsyncWebClient

from bot.events import parse_turn
from bot.listeners import _react
from tests.bot import payloads


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
