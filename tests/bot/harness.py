"""The real Bolt app served on 127.0.0.1 against the fake Slack, and signed Events API requests.

Payloads come from tests/bot/payloads.py (shaped like real deliveries), so no ../shared is needed.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

import aiohttp
from aiohttp import web
from pydantic import SecretStr
from slack_bolt.async_app import AsyncApp

from bot.app import Answerer, InFlight, RetryPolicy, build_app
from bot.health import Readiness
from bot.live import Reload
from bot.metrics import Metrics
from bot.resume import Resumer
from bot.serve import http_app
from bot.settings import Settings
from bot.store import AnswerStore
from grounding.deadline import Clock
from retrieval.config import Config
from tests.bot import payloads
from tests.bot.conftest import PAYMENTS_CHANNEL, TEAM
from tests.bot.fake_slack import FakeSlack

SIGNING_SECRET = "e2e-signing-secret-8f2c"
GENERAL = "C0GENERAL"
CONNECT = "C0CONNECT"
DM = "D0DIRECT"
ASKER = "U0ASKER"
BOT_USER = "U0DOCBOT"  # FakeSlack's bot user id


def signature(body: str, timestamp: int, secret: str = SIGNING_SECRET) -> str:
    """Slack's v0 request signature: HMAC-SHA256 over `v0:<timestamp>:<body>`."""
    base = f"v0:{timestamp}:{body}".encode()
    return "v0=" + hmac.new(secret.encode(), base, hashlib.sha256).hexdigest()


def mention(
    text: str, *, channel: str, ts: str, event_id: str, bot_user_id: str,
    thread_ts: str | None = None, user: str = ASKER, team: str = TEAM, ext_shared: bool = False,
) -> dict[str, Any]:  # fmt: skip
    """An `app_mention` delivery asking `text` of docbot."""
    return payloads.app_mention(
        text, team=team, channel=channel, user=user, ts=ts, event_id=event_id,
        bot_user_id=bot_user_id, thread_ts=thread_ts, ext_shared=ext_shared,
    )  # fmt: skip


def direct_message(text: str, *, channel: str, ts: str, event_id: str) -> dict[str, Any]:
    return payloads.direct_message(
        text, team=TEAM, channel=channel, user=ASKER, ts=ts, event_id=event_id,
        bot_user_id=BOT_USER,
    )  # fmt: skip


def reaction(
    added: bool, emoji: str, *, channel: str, item_ts: str, event_id: str, user: str = ASKER,
    item_user: str = BOT_USER,
) -> dict[str, Any]:  # fmt: skip
    """A reaction by `user` on the message `item_ts`, written by `item_user` (docbot's own)."""
    return payloads.reaction(
        added, emoji, team=TEAM, channel=channel, user=user, item_ts=item_ts,
        item_user=item_user, event_id=event_id, bot_user_id=BOT_USER,
    )  # fmt: skip


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


async def post_form(
    session: aiohttp.ClientSession, url: str, fields: dict[str, str], *,
    secret: str = SIGNING_SECRET, retry: int | None = None,
) -> tuple[int, str]:  # fmt: skip
    """POST a signed form, as Slack sends interactivity (`payload=<json>`) and slash commands;
    `retry`: as Slack's retry of it, with its retry headers."""
    raw = urlencode(fields)
    stamp = int(time.time())
    headers = {
        "Content-Type": "application/x-www-form-urlencoded",
        "X-Slack-Request-Timestamp": str(stamp),
        "X-Slack-Signature": signature(raw, stamp, secret),
    }
    if retry is not None:
        headers.update({"X-Slack-Retry-Num": str(retry), "X-Slack-Retry-Reason": "http_timeout"})
    async with session.post(url, data=raw.encode(), headers=headers) as response:
        return response.status, await response.text()


class RecordedWaits:
    """A RetryPolicy `sleep` that records each wait the Web API client asks for and returns at
    once: a retry test checks the wait (Retry-After honoured) without spending it."""

    def __init__(self) -> None:
        self.seconds: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.seconds.append(seconds)
        await asyncio.sleep(0)


def instant_retries() -> tuple[RetryPolicy, RecordedWaits]:
    """slack_sdk's backoff and Slack's Retry-After, recorded instead of slept."""
    waits = RecordedWaits()
    return RetryPolicy(sleep=waits), waits


@dataclass
class RunningApp:
    app: AsyncApp
    url: str
    session: aiohttp.ClientSession
    in_flight: InFlight
    waits: RecordedWaits  # what the Web API client's retries asked to wait, in seconds

    async def settle(self, timeout: float = 5.0) -> None:
        """Until every handler started so far has finished (the drain `docbot serve` uses on
        shutdown): what a duplicate delivery was going to do, it has done."""
        await self.in_flight.drain(timeout)
        assert self.in_flight.pending() == 0, f"handlers still running after {timeout}s"

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

    async def interact(
        self, payload: dict[str, Any], *, retry: int | None = None
    ) -> tuple[int, str]:
        """A signed interactivity request (a button pressed, a modal submitted); `retry`: Slack
        delivering it again, its retry headers on."""
        fields = {"payload": json.dumps(payload)}
        return await post_form(self.session, self.url, fields, retry=retry)

    async def command(self, fields: dict[str, str]) -> tuple[int, str]:
        """A signed slash command."""
        return await post_form(self.session, self.url, fields)


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


def socket_settings(slack: FakeSlack) -> Settings:
    """`settings_for` in Socket Mode: the app token, and no signing secret."""
    return settings_for(slack).model_copy(
        update={"slack_app_token": SecretStr(slack.app_token), "slack_signing_secret": None}
    )


@asynccontextmanager
async def running_app(
    slack: FakeSlack, config: Config, answerer: Answerer, store: AnswerStore,
    *, reload: Reload | None = None, in_flight: InFlight | None = None,
    resumer: Resumer | None = None, metrics: Metrics | None = None,
    readiness: Readiness | None = None, clock: Clock | None = None,
    retry: RetryPolicy | None = None,
) -> AsyncIterator[RunningApp]:  # fmt: skip
    """`build_app` + `http_app` on an ephemeral loopback port, as `docbot serve` runs them;
    `in_flight` lets a test wait until every handler has finished (its drain). The Web API
    client's retries do not sleep: `RunningApp.waits` records what they asked for. With
    `metrics` / `readiness`, /metrics and /readyz are served beside /slack/events; `clock`
    times the waits on Slack a lease bounds; `retry`, a policy that waits (a benchmark's: then
    `waits` stays empty)."""
    in_flight = in_flight or InFlight()
    instant, waits = instant_retries()
    retry = retry or instant
    app = build_app(
        settings_for(slack),
        answerer,
        store,
        config=config,
        reload=reload,
        in_flight=in_flight,
        retry=retry,
        resumer=resumer,
        metrics=metrics,
        readiness=readiness,
        clock=clock,
    )
    endpoints = http_app(app, SIGNING_SECRET, readiness=readiness, metrics=metrics)
    runner = web.AppRunner(endpoints, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    try:
        async with aiohttp.ClientSession() as session:
            url = f"http://127.0.0.1:{port}/slack/events"
            yield RunningApp(app, url, session, in_flight, waits)
    finally:
        await runner.cleanup()


def with_channels(slack: FakeSlack) -> FakeSlack:
    """The fake Slack knows the test channels: public, private, Slack Connect and a DM."""
    slack.set_channel(GENERAL, is_channel=True, name="general")
    slack.set_channel(PAYMENTS_CHANNEL, is_channel=True, is_private=True, name="payments")
    slack.set_channel(CONNECT, is_channel=True, is_shared=True, is_ext_shared=True, name="ext")
    slack.set_channel(DM, is_im=True, user=ASKER)
    return slack


@asynccontextmanager
async def two_replicas(
    config: Config, answerer: Answerer, first: AnswerStore, second: AnswerStore | None = None,
    *, resumer: Resumer | None = None, clock: Clock | None = None,
    metrics: Metrics | None = None,
) -> AsyncIterator[tuple[FakeSlack, RunningApp, RunningApp]]:  # fmt: skip
    """A fake Slack that knows the test channels, and two apps on it as two replicas of docbot:
    the first on `first`, the second on `second` (the same store by default) and, with
    `resumer`, taking over what the first leaves unfinished; `clock` and `metrics`, the
    second's."""
    async with fake_slack() as slack:
        with_channels(slack)
        async with (
            running_app(slack, config, answerer, first) as one,
            running_app(
                slack,
                config,
                answerer,
                second or first,
                resumer=resumer,
                clock=clock,
                metrics=metrics,
            ) as other,
        ):
            yield slack, one, other
