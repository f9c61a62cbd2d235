"""Builds the Bolt AsyncApp: the Web API client (with retries), the channel policy, the listeners.

Nothing here reads the environment: settings, answerer and store come from the composition root.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable
from typing import Any

from slack_bolt.async_app import AsyncApp
from slack_bolt.logger.messages import warning_client_prioritized_and_token_skipped
from slack_bolt.middleware.request_verification.async_request_verification import (
    AsyncRequestVerification,
)
from slack_bolt.response import BoltResponse
from slack_sdk.web.async_client import AsyncWebClient

from bot.deps import REFUSED_WHILE_CLOSING
from bot.health import Readiness
from bot.listeners import Answerer, InFlight, ListenerDeps, register
from bot.live import Live, LiveRuntime, Reload, RuntimeCloser
from bot.metrics import Metrics
from bot.policy import ChannelPolicy, slack_channel_lookup
from bot.resume import Resumer
from bot.retries import RATE_LIMIT_RETRIES, SERVER_ERROR_RETRIES, RetryPolicy
from bot.settings import Settings
from bot.store import AnswerStore
from bot.teams import served_teams
from bot.webapi import ObservedWebClient
from grounding.deadline import Clock, SystemClock
from retrieval.config import Config

__all__ = [
    "RATE_LIMIT_RETRIES",
    "SERVER_ERROR_RETRIES",
    "Answerer",
    "InFlight",
    "RetryPolicy",
    "build_app",
    "make_slack_client",
]

SLACK_API_URL = "https://slack.com/api/"


log = logging.getLogger("docbot.slack")

BOLT_LOGGER = "docbot.slack.bolt"
# Where Bolt logs a request whose signature or timestamp is wrong (bolt's get_bolt_logger naming).
VERIFICATION_LOGGER = f"slack_bolt.{AsyncRequestVerification.__name__}"
_REJECTED_BODY = re.compile(r", body: .*\)\s*$", re.DOTALL)


class BoltLogFilter(logging.Filter):
    """Keeps message text out of Bolt's logs and drops a start-up warning that does not apply.

    Bolt logs a rejected request's whole body (the question, at INFO); and it reads
    SLACK_BOT_TOKEN from the environment itself, then warns that the client we pass wins."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if message == warning_client_prioritized_and_token_skipped():
            return False
        if message.startswith("Invalid request signature detected"):
            record.msg, record.args = _REJECTED_BODY.sub(", body withheld)", message), ()
        return True


def _filter_bolt_logs(*names: str) -> None:
    for name in names:
        logger = logging.getLogger(name)
        if not any(isinstance(f, BoltLogFilter) for f in logger.filters):
            logger.addFilter(BoltLogFilter())


def make_slack_client(
    settings: Settings, retry: RetryPolicy | None = None, metrics: Metrics | None = None
) -> AsyncWebClient:
    """The Web API client: `DOCBOT_SLACK_API_URL` when set, retrying 429s and 5xx (`retry`:
    slack_sdk's backoff and Slack's Retry-After unless a test passes its own waiting); with
    `metrics`, each call that fails for good is counted by method."""
    return ObservedWebClient(
        on_error=metrics.slack_error if metrics is not None else _uncounted,
        token=settings.bot_token(),
        base_url=settings.slack_api_url or SLACK_API_URL,
        retry_handlers=(retry or RetryPolicy()).handlers(),
        logger=logging.getLogger("docbot.slack.client"),
    )


def _uncounted(method: str) -> None:
    """A failed call nobody counts (a client built without metrics)."""


def build_app(
    settings: Settings,
    answerer: Answerer,
    store: AnswerStore,
    *,
    config: Config,
    client: AsyncWebClient | None = None,
    policy: ChannelPolicy | None = None,
    in_flight: InFlight | None = None,
    retry: RetryPolicy | None = None,
    reload: Reload | None = None,
    resumer: Resumer | None = None,
    metrics: Metrics | None = None,
    readiness: Readiness | None = None,
    clock: Clock | None = None,
    closer: RuntimeCloser | None = None,
) -> AsyncApp:
    """The real app; tests pass fakes for the answerer and point settings at a fake Slack.

    HTTP mode (no SLACK_APP_TOKEN) needs the signing secret: checked here, at start-up, not on
    the first request. Socket Mode connections are authenticated by the app token instead.
    With `reload`, docbot.yml and the index are read again whenever they change (bot/live.py);
    without it, `config` and `answerer` serve until the process ends. `metrics` counts what
    /metrics shows, `readiness` answers /readyz (bot/serve.py serves both). `clock` times the
    waits on Slack a lease bounds (tests pass a fake one; the system clock otherwise).
    `closer` closes the answerer served, at shutdown (bot/serve.py).
    """
    settings.bot_token()  # fails with a clear message when SLACK_BOT_TOKEN is missing
    signing_secret = "" if settings.socket_mode else settings.signing_secret()
    metrics = metrics or Metrics()
    client = client or make_slack_client(settings, retry, metrics)
    _filter_bolt_logs(BOLT_LOGGER)  # before AsyncApp, which logs the token warning on it
    app = AsyncApp(
        client=client,
        # Passed explicitly (even when empty) so Bolt never falls back to reading the environment.
        signing_secret=signing_secret,
        request_verification_enabled=not settings.socket_mode,
        # Ack at once; the answer (seconds) is worked out after the ack, within Slack's 3 s.
        process_before_response=False,
        logger=logging.getLogger(BOLT_LOGGER),
        name="docbot",
    )
    # Bolt's middleware loggers copy the base logger's filters only when they have none: make sure.
    _filter_bolt_logs(VERIFICATION_LOGGER)
    policy = policy or ChannelPolicy(config, slack_channel_lookup(client))
    runtime = LiveRuntime(Live(config, answerer, policy), reload)
    if closer is not None:
        closer.bind(runtime)
    in_flight = in_flight or InFlight()
    clock = clock or SystemClock()
    deps = ListenerDeps(runtime, store, in_flight=in_flight, metrics=metrics, clock=clock)
    metrics.count_in_flight(deps.in_flight.pending)
    if readiness is not None:
        readiness.bind(deps)
    app.middleware(_refuse_when_closed(deps.in_flight))
    app.middleware(served_teams(deps.runtime))  # the one team check, before every listener
    register(app, deps)
    if resumer is not None:
        resumer.bind(deps, client)
    return app


def _refuse_when_closed(in_flight: InFlight) -> Callable[..., Awaitable[BoltResponse | None]]:
    """Once shutdown has begun, events are answered 503 before Bolt acknowledges them: Slack
    delivers them again (to this app once restarted, or to another replica) instead of handing
    them to a process that may be gone before it answers."""

    async def refuse(
        body: dict[str, Any], next_: Callable[[], Awaitable[None]]
    ) -> BoltResponse | None:
        if in_flight.accepting or body.get("type") != "event_callback":
            await next_()
            return None
        log.info(
            "shutting down: event %s refused, for Slack to deliver again", body.get("event_id")
        )
        return BoltResponse(
            status=REFUSED_WHILE_CLOSING, body="docbot is shutting down; deliver again later"
        )

    return refuse
