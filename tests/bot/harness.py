"""The real Bolt app served on 127.0.0.1 against the fake Slack, and signed Events API requests.

Payloads are the shared real Slack fixtures with their ids changed to the test config's.
"""

from __future__ import annotations

import copy
import hashlib
import hmac
import json
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp import web
from pydantic import SecretStr
from slack_bolt.async_app import AsyncApp

from bot.app import Answerer, build_app
from bot.serve import http_app
from bot.settings import Settings
from bot.store import AnswerStore
from retrieval.config import Config
from tests.bot.conftest import TEAM
from tests.bot.fake_slack import FakeSlack

SHARED = Path(__file__).resolve().parents[2] / ".." / "shared"
FIXTURES = SHARED / "slack" / "fixtures"
SIGNING_SECRET = "e2e-signing-secret-8f2c"
ASKER = "U0ASKER"


def fixture(name: str) -> dict[str, Any]:
    path = FIXTURES / name
    if not path.is_file():
        pytest.skip(f"../shared is absent: {path} holds the real Slack payloads these tests replay")
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def signature(body: str, timestamp: int, secret: str = SIGNING_SECRET) -> str:
    """Slack's v0 request signature: HMAC-SHA256 over `v0:<timestamp>:<body>`."""
    base = f"v0:{timestamp}:{body}".encode()
    return "v0=" + hmac.new(secret.encode(), base, hashlib.sha256).hexdigest()


def mention(
    text: str, *, channel: str, ts: str, event_id: str, bot_user_id: str,
    thread_ts: str | None = None, user: str = ASKER, team: str = TEAM, ext_shared: bool = False,
) -> dict[str, Any]:  # fmt: skip
    """An `app_mention` delivery (the shared fixture) asking `text` of docbot."""
    body = _envelope(fixture("app_mention.json"), team, event_id)
    event = body["event"]
    event.update(channel=channel, ts=ts, event_ts=ts, user=user, team=team,
                 text=f"<@{bot_user_id}> {text}".rstrip())  # fmt: skip
    event.pop("blocks", None)  # rich-text blocks mirror the text; docbot reads `text`
    if thread_ts is not None:
        event.update(thread_ts=thread_ts, parent_user_id=user)
    body["is_ext_shared_channel"] = ext_shared
    body["event_context"] = f"1-app_mention-{team}-{channel}"
    return body


def direct_message(text: str, *, channel: str, ts: str, event_id: str) -> dict[str, Any]:
    body = _envelope(fixture("message_im.json"), TEAM, event_id)
    body["event"].update(channel=channel, ts=ts, event_ts=ts, user=ASKER, text=text)
    return body


def reaction(
    added: bool, emoji: str, *, channel: str, item_ts: str, event_id: str, user: str = ASKER
) -> dict[str, Any]:
    name = "reaction_added.json" if added else "reaction_removed.json"
    body = _envelope(fixture(name), TEAM, event_id)
    event = body["event"]
    event.update(user=user, reaction=emoji, item_user="U0DOCBOT",
                 item={"type": "message", "channel": channel, "ts": item_ts})  # fmt: skip
    return body


def _envelope(template: dict[str, Any], team: str, event_id: str) -> dict[str, Any]:
    body = copy.deepcopy(template)
    body.update(team_id=team, event_id=event_id, event_time=int(time.time()))
    body["authorizations"] = [{"enterprise_id": None, "team_id": team, "user_id": "U0DOCBOT",
                               "is_bot": True, "is_enterprise_install": False}]  # fmt: skip
    return body


async def post_event(
    session: aiohttp.ClientSession,
    url: str,
    body: dict[str, Any] | str,
    *,
    timestamp: int | None = None,
    secret: str = SIGNING_SECRET,
    retry: int | None = None,
) -> tuple[int, str]:
    """POST a signed Events API request; returns (status, response text)."""
    raw = body if isinstance(body, str) else json.dumps(body)
    stamp = int(time.time()) if timestamp is None else timestamp
    headers = {
        "Content-Type": "application/json",
        "X-Slack-Request-Timestamp": str(stamp),
        "X-Slack-Signature": signature(raw, stamp, secret),
    }
    if retry is not None:
        headers.update({"X-Slack-Retry-Num": str(retry), "X-Slack-Retry-Reason": "http_timeout"})
    async with session.post(url, data=raw.encode(), headers=headers) as response:
        return response.status, await response.text()


@dataclass
class RunningApp:
    app: AsyncApp
    url: str
    session: aiohttp.ClientSession

    async def send(
        self,
        body: dict[str, Any] | str,
        *,
        timestamp: int | None = None,
        secret: str = SIGNING_SECRET,
        retry: int | None = None,
    ) -> tuple[int, str]:
        return await post_event(
            self.session, self.url, body, timestamp=timestamp, secret=secret, retry=retry
        )


@asynccontextmanager
async def fake_slack() -> AsyncIterator[FakeSlack]:
    slack = FakeSlack(team_id=TEAM)
    await slack.start()
    try:
        yield slack
    finally:
        await slack.stop()


def settings_for(slack: FakeSlack) -> Settings:
    return Settings(
        slack_bot_token=SecretStr(slack.token),
        slack_signing_secret=SecretStr(SIGNING_SECRET),
        slack_api_url=slack.url,
    )


@asynccontextmanager
async def running_app(
    slack: FakeSlack, config: Config, answerer: Answerer, store: AnswerStore
) -> AsyncIterator[RunningApp]:
    """`build_app` + `http_app` on an ephemeral loopback port, as `docbot serve` runs them."""
    app = build_app(settings_for(slack), answerer, store, config=config)
    runner = web.AppRunner(http_app(app), access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    try:
        async with aiohttp.ClientSession() as session:
            yield RunningApp(app, f"http://127.0.0.1:{port}/slack/events", session)
    finally:
        await runner.cleanup()
