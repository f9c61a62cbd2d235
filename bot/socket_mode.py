"""Socket Mode: one WebSocket to Slack, and every envelope on it acknowledged, whatever it holds.

Bolt's AsyncSocketModeHandler acknowledges only what a listener handled: an envelope without a
payload, with a payload that is not an object, of a kind docbot does not serve, or one that made
Bolt fail was never acknowledged, and Slack redelivers an unacknowledged envelope. Here each
envelope with an `envelope_id` is acknowledged (except one refused during shutdown, which Slack
should deliver again); one that is not handed to Bolt is logged once. What a listener passed to
`ack` (a modal's `response_action: errors`, say) rides back in the acknowledgement's `payload`:
over Socket Mode that is the only way it reaches Slack.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from typing import Any

from slack_bolt.async_app import AsyncApp
from slack_bolt.request.async_request import AsyncBoltRequest
from slack_bolt.response import BoltResponse
from slack_sdk.socket_mode.aiohttp import SocketModeClient
from slack_sdk.socket_mode.async_client import AsyncBaseSocketModeClient

from bot.deps import REFUSED_WHILE_CLOSING
from bot.inbound import Verdict, check_payload, shown
from bot.webapi import SLACK_CALL_ERRORS

log = logging.getLogger("docbot.serve")

# Messages from Slack that are not envelopes and need no acknowledgement.
CONTROL_TYPES = frozenset({"hello", "disconnect"})


class SocketModeConnection:
    """The WebSocket at `url` (from apps.connections.open), feeding envelopes to `app`."""

    def __init__(self, app: AsyncApp, app_token: str, url: str) -> None:
        self.app = app
        self.client = SocketModeClient(app_token, logger=app.logger, web_client=app.client)
        self.client.wss_uri = url
        self.client.message_listeners.append(self.on_message)

    async def connect(self) -> None:
        await self.client.connect()  # type: ignore[no-untyped-call]  # untyped in slack_sdk

    async def close(self) -> None:
        await self.client.close()  # type: ignore[no-untyped-call]

    async def on_message(
        self, client: AsyncBaseSocketModeClient, message: dict[str, Any], raw: str | None
    ) -> None:
        """Every JSON object the socket delivers (the SDK's message listener)."""
        kind, envelope_id = message.get("type"), message.get("envelope_id")
        if not isinstance(envelope_id, str) or not envelope_id:
            if kind not in CONTROL_TYPES:
                log.warning("Socket Mode message without an envelope_id (type %s): ignored",
                            shown(kind))  # fmt: skip
            return
        verdict = Verdict(400, "it has no payload")
        answer: dict[str, Any] | None = None
        try:
            if "payload" in message:
                verdict = check_payload(message["payload"], kind if isinstance(kind, str) else "")
            if verdict.dispatch:
                verdict, answer = await self._dispatch(message)
        finally:
            # The one envelope left unacknowledged: refused because docbot is shutting down,
            # so that Slack delivers it again (to another connection, or after the restart).
            if verdict.status != REFUSED_WHILE_CLOSING:
                await self._ack(client, envelope_id, answer)
        if verdict.status == REFUSED_WHILE_CLOSING:
            log.info("Socket Mode envelope %s left for Slack to deliver again (shutting down, "
                     "or no claim without the answer store)", shown(envelope_id))  # fmt: skip
        elif not verdict.dispatch:
            log.log(logging.INFO if verdict.status == 200 else logging.WARNING,
                    "acknowledged Socket Mode envelope %s (type %s) without handling it: %s",
                    shown(envelope_id), shown(kind), verdict.reason)  # fmt: skip

    async def _dispatch(self, message: dict[str, Any]) -> tuple[Verdict, dict[str, Any] | None]:
        """Bolt's verdict on the envelope, and the payload its listener acknowledged with."""
        headers: dict[str, str | Sequence[str]] = {}
        if isinstance(message.get("retry_attempt"), int):
            headers["x-slack-retry-num"] = str(message["retry_attempt"])
        if isinstance(message.get("retry_reason"), str):
            headers["x-slack-retry-reason"] = message["retry_reason"]
        try:
            request = AsyncBoltRequest(mode="socket_mode", body=message["payload"], headers=headers)
            response = await self.app.async_dispatch(request)
        except Exception as exc:
            # The Slack edge catches broadly: a payload Bolt cannot read is the sender's fault.
            return Verdict(400, f"Bolt could not read it ({type(exc).__name__})"), None
        if response.status != 200:
            return Verdict(response.status, f"Bolt answered {response.status}"), None
        return Verdict(None, "ok"), ack_payload(response)

    async def _ack(
        self, client: AsyncBaseSocketModeClient, envelope_id: str, payload: dict[str, Any] | None
    ) -> None:
        ack: dict[str, Any] = {"envelope_id": envelope_id}
        if payload:
            ack["payload"] = payload
        try:
            await client.send_socket_mode_response(ack)
        except SLACK_CALL_ERRORS as exc:
            # Slack redelivers it on the next connection, where it is acknowledged again.
            log.warning("could not acknowledge Socket Mode envelope %s: %r", shown(envelope_id),
                        exc)  # fmt: skip


def ack_payload(response: BoltResponse) -> dict[str, Any] | None:
    """What a listener passed to `ack(...)`, as the envelope acknowledgement carries it: a JSON
    object as it is, plain text as {"text": ...}, nothing for a bare `ack()`."""
    body = response.body
    if not body:
        return None
    kinds = response.headers.get("content-type") or [""]
    if next(iter(kinds), "").startswith("application/json"):
        try:
            parsed = json.loads(body)
        except ValueError:
            return None
        return parsed if isinstance(parsed, dict) and parsed else None
    return {"text": body}
