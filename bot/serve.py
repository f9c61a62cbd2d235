"""`docbot serve`: runs the app over Socket Mode when SLACK_APP_TOKEN is set, else HTTP.

HTTP mode serves Slack's Events API on POST /slack/events (and GET /healthz for load balancers).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace

from aiohttp import web
from slack_bolt.adapter.aiohttp import to_aiohttp_response
from slack_bolt.async_app import AsyncApp
from slack_bolt.request.async_request import AsyncBoltRequest
from slack_sdk.web.async_client import AsyncWebClient

from bot.app import build_app
from bot.health import Readiness
from bot.inbound import Verdict, check_body, check_signed
from bot.listeners import Answerer, InFlight
from bot.live import Reload, RuntimeCloser
from bot.metrics import CONTENT_TYPE, Metrics
from bot.resume import Resumer
from bot.retries import RetryPolicy
from bot.settings import Settings, SettingsError
from bot.socket_mode import SocketModeConnection
from bot.store import AnswerStore
from bot.sync_loop import SourceSync
from bot.webapi import SLACK_CALL_ERRORS, slack_error, slack_error_code
from retrieval.config import Config
from retrieval.errors import DocbotError

log = logging.getLogger("docbot.serve")

EVENTS_PATH = "/slack/events"
# On shutdown, answers already acknowledged get this long to finish before the loop closes.
DRAIN_SECONDS = 20.0
# Then the answerer served gets this long to close its model client's connections.
CLOSE_SECONDS = 5.0
STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)


def http_app(
    app: AsyncApp, signing_secret: str, *, path: str = EVENTS_PATH,
    now: Callable[[], float] = time.time, readiness: Readiness | None = None,
    metrics: Metrics | None = None,
) -> web.Application:  # fmt: skip
    """The aiohttp application that hands Slack's signed requests to Bolt, beside GET /healthz
    (the process is up), /readyz (with `readiness`: 200, or 503 and why) and /metrics (with
    `metrics`: Prometheus's text format).

    The signature is checked here, before anything parses the body (bot/inbound.py), and Bolt
    checks it again. A rejected request is answered 401 (not signed by Slack) or 400 (signed
    but not a payload), a payload docbot does not serve 200; each is logged once, without its
    body."""

    async def events(request: web.Request) -> web.Response:
        body = await request.read()
        verdict = check_signed(body, request.headers, signing_secret, now)
        text = ""
        if verdict is None:
            verdict, text = check_body(body, request.content_type)
        if not verdict.dispatch:
            return _refuse(request, verdict)
        headers: dict[str, str | Sequence[str]] = dict(request.headers.items())
        try:
            bolt_request = AsyncBoltRequest(body=text, query=request.query_string, headers=headers)
            response = await app.async_dispatch(bolt_request)
        except Exception as exc:
            # The Slack edge catches broadly: a payload Bolt cannot read is the sender's fault.
            refused = Verdict(400, f"Bolt could not read it ({type(exc).__name__})")
            return _refuse(request, replace(refused, payload_type=verdict.payload_type))
        return await to_aiohttp_response(response)

    async def health(_: web.Request) -> web.Response:
        return web.Response(text="ok")

    web_app = web.Application()
    web_app.router.add_post(path, events)
    web_app.router.add_get("/healthz", health)
    if readiness is not None:
        web_app.router.add_get("/readyz", _ready(readiness))
    if metrics is not None:
        web_app.router.add_get("/metrics", _scrape(metrics))
    return web_app


def _ready(readiness: Readiness) -> Callable[[web.Request], Awaitable[web.Response]]:
    async def ready(_: web.Request) -> web.Response:
        problems = await readiness.problems()
        if problems:
            return web.Response(status=503, text="not ready: " + "; ".join(problems) + "\n")
        return web.Response(text="ready\n")

    return ready


def _scrape(metrics: Metrics) -> Callable[[web.Request], Awaitable[web.Response]]:
    async def scrape(_: web.Request) -> web.Response:
        response = web.Response(body=metrics.exposition())
        response.headers["Content-Type"] = CONTENT_TYPE
        return response

    return scrape


def _refuse(request: web.Request, verdict: Verdict) -> web.Response:
    """One log line per refused request: who sent it and why, never the body."""
    status = verdict.status or 400
    level = logging.INFO if status == 200 else logging.WARNING
    what = "acknowledged and ignored" if status == 200 else f"rejected (HTTP {status})"
    log.log(level, "%s a request to %s from %s: %s", what, request.path, request.remote,
            verdict.reason)  # fmt: skip
    return web.json_response({"ok": status == 200, "error": verdict.reason}, status=status)


async def run_serve(
    config: Config,
    settings: Settings,
    answerer: Answerer,
    store: AnswerStore,
    *,
    port: int | None = None,
    host: str | None = None,
    reload: Reload | None = None,
    retry: RetryPolicy | None = None,
    in_flight: InFlight | None = None,
    sync: SourceSync | None = None,
) -> None:
    """Serve until SIGTERM or SIGINT (or cancelled), then drain; configuration problems surface
    before anything listens.

    `host` and `port` (HTTP mode only) default to `serve:` in docbot.yml, read at start-up.
    With `reload`, changes to docbot.yml and the index apply from the next question, and
    `sync` (a SourceSync by default) keeps the documents current. `retry` is how the Web API
    client waits between tries (slack_sdk's backoff unless a test says)."""
    in_flight = in_flight or InFlight()
    resumer, metrics, readiness, closer = Resumer(), Metrics(), Readiness(), RuntimeCloser()
    app = build_app(
        settings, answerer, store, config=config, in_flight=in_flight, reload=reload, retry=retry,
        resumer=resumer, metrics=metrics, readiness=readiness, closer=closer,
    )  # fmt: skip
    identity = await check_token(app.client)
    log.info("connected to Slack as %s in %s", identity.get("user"), identity.get("team"))
    if identity.get("team_id") not in config.teams:
        # Not fatal (an org-wide install reports the org), but otherwise every event is ignored.
        log.warning(
            "the bot token belongs to workspace %s, which is not in `teams:` of docbot.yml %s: "
            "events from it will be ignored; add its ID if docbot should answer there",
            identity.get("team_id"), list(config.teams),
        )  # fmt: skip
    if settings.socket_mode:
        if host is not None or port is not None:
            log.warning(
                "Socket Mode connects out to Slack and listens on no port: --host and "
                "--port apply to HTTP mode only and are not used"
            )
        serving = asyncio.create_task(_serve_socket_mode(app, settings.app_token()))
    else:
        listen_host = config.serve.host if host is None else host
        listen_port = config.serve.port if port is None else port
        endpoints = http_app(app, settings.signing_secret(), readiness=readiness, metrics=metrics)
        serving = asyncio.create_task(_serve_http(endpoints, listen_host, listen_port))
    # What a previous process left unfinished is answered now, not when Slack retries (it may not).
    background = [asyncio.create_task(resumer.run())]
    if reload is not None:  # a newly published index is swapped in even when nobody asks
        background.append(asyncio.create_task(readiness.watch()))
        # Git and site collections synced on schedule, local folders watched; re-indexed here.
        background.append(asyncio.create_task((sync or SourceSync(reload)).run()))
    try:
        await _until_stopped(serving)
    finally:
        # Refuse what still arrives (Slack delivers it again), then let the answers already
        # acknowledged post their replies. HTTP mode listens until they have, answering 503 to
        # events and to /readyz, so a load balancer moves traffic on; Socket Mode disconnects
        # first (an unacknowledged envelope is delivered to another connection).
        in_flight.close()
        first = (*background, serving) if settings.socket_mode else tuple(background)
        await _cancel(first)
        await _drain(in_flight, DRAIN_SECONDS)
        await _cancel((serving,))
        # The answerer served (its model client's connections) is closed once the last turn
        # holding it has ended, as a reload closes the one it replaces.
        await closer.close(CLOSE_SECONDS)


async def _cancel(tasks: Sequence[asyncio.Task[None]]) -> None:
    for task in tasks:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


async def _until_stopped(serving: asyncio.Task[None]) -> None:
    """Until SIGTERM (systemd, Docker, Kubernetes) or SIGINT (Ctrl-C) arrives, or the server
    fails (its error is raised). A second signal during the drain stops at once (the handlers
    are gone by then: the default action applies)."""
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    installed = []
    for sig in STOP_SIGNALS:
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            # Not in the main thread (or not on POSIX): cancellation is then the only stop.
            loop.add_signal_handler(sig, _stopping, sig, stop)
            installed.append(sig)
    stopper = asyncio.create_task(stop.wait())
    try:
        await asyncio.wait({serving, stopper}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        stopper.cancel()
        for sig in installed:
            loop.remove_signal_handler(sig)
    if serving.done():
        serving.result()


def _stopping(sig: signal.Signals, stop: asyncio.Event) -> None:
    log.info("received %s: no longer accepting events; finishing the answers in progress",
             sig.name)  # fmt: skip
    stop.set()


async def check_token(client: AsyncWebClient) -> dict[str, object]:
    """auth.test at start-up: a wrong token or an unreachable Slack fails now, clearly."""
    try:
        response = await client.auth_test()
    except SLACK_CALL_ERRORS as exc:
        # Only Slack's own error code is a rejection; a proxy's HTML 502 is not.
        if (code := slack_error_code(exc)) is not None:
            raise SettingsError(
                f"Slack rejected SLACK_BOT_TOKEN ({code}): copy the Bot User OAuth Token "
                "(xoxb-...) again from OAuth & Permissions, and reinstall the app if its "
                "scopes changed"
            ) from exc
        raise DocbotError(
            f"cannot reach the Slack Web API at {client.base_url} ({slack_error(exc)}): check "
            "the network, or DOCBOT_SLACK_API_URL if it is set"
        ) from exc
    return dict(response.data) if isinstance(response.data, dict) else {}


async def _serve_http(endpoints: web.Application, host: str, port: int) -> None:
    runner = web.AppRunner(endpoints)
    await runner.setup()
    try:
        site = web.TCPSite(runner, host, port)
        try:
            await site.start()
        except OSError as exc:
            raise DocbotError(
                f"cannot listen on {host}:{port} ({exc.strerror}): pick another port "
                "(--port, or serve.port in docbot.yml), or another --host"
            ) from exc
        log.info("listening for Slack events on http://%s:%d%s", host, port, EVENTS_PATH)
        await asyncio.Event().wait()  # until cancelled by run_serve
    finally:
        await runner.cleanup()


async def _serve_socket_mode(app: AsyncApp, app_token: str) -> None:
    # The SDK retries a failing connect forever; asking for the URL first turns a bad app token
    # into a start-up error, and the client then connects to the URL it was given.
    # bot/socket_mode.py, not Bolt's handler, so that every envelope is acknowledged.
    connection = SocketModeConnection(app, app_token, await _socket_url(app.client, app_token))
    try:
        await connection.connect()
        log.info("connected to Slack over Socket Mode (nothing listens on this machine)")
        await asyncio.Event().wait()  # until cancelled
    finally:
        await connection.close()


async def _socket_url(client: AsyncWebClient, app_token: str) -> str:
    try:
        response = await client.apps_connections_open(app_token=app_token)
    except SLACK_CALL_ERRORS as exc:
        if (code := slack_error_code(exc)) is not None:
            raise SettingsError(
                f"Slack rejected SLACK_APP_TOKEN ({code}): create an app-level token with "
                "connections:write under Basic Information, and enable Socket Mode"
            ) from exc
        raise DocbotError(f"cannot open a Socket Mode connection ({slack_error(exc)})") from exc
    return str(response["url"])


async def _drain(in_flight: InFlight, seconds: float) -> None:
    """Answers already acknowledged get `seconds` to post their replies before the loop closes."""
    if pending := in_flight.pending():
        log.info("waiting up to %.0fs for %d answer(s) in progress", seconds, pending)
        with contextlib.suppress(asyncio.CancelledError):
            await in_flight.drain(seconds)
