"""`docbot serve` on SIGTERM, as systemd, Docker and Kubernetes stop it: the answer already
acknowledged is posted, what arrives meanwhile is refused (so Slack delivers it again), and
serve returns normally."""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

import aiohttp

from bot.app import Answerer, InFlight, build_app
from bot.serve import run_serve
from bot.socket_mode import SocketModeConnection
from bot.store import Claim, MentionKey, SQLiteAnswerStore
from retrieval.config import Config
from tests.bot import payloads
from tests.bot.conftest import TEAM
from tests.bot.e2e import until
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


@contextmanager
def sigterm_caught() -> Iterator[list[int]]:
    """Catches a SIGTERM that serve did not handle, so the test fails instead of pytest dying."""
    caught: list[int] = []

    def fallback(signum: int, frame: FrameType | None) -> None:
        caught.append(signum)

    previous = signal.signal(signal.SIGTERM, fallback)
    try:
        yield caught
    finally:
        signal.signal(signal.SIGTERM, previous)


async def _refused(session: aiohttp.ClientSession, url: str, body: dict[str, object]) -> bool:
    """Whether the delivery was not acknowledged (503, or nobody listening any more)."""
    try:
        status, _ = await post_event(session, url, body)
    except aiohttp.ClientConnectionError:
        return True
    return status != 200


def test_serve_sigterm_drains_the_answer_in_progress_and_refuses_new_events(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    config, answerer = indexed
    port = free_port()

    async def main() -> list[str]:
        async with fake_slack() as slack:
            settings = settings_for(with_channels(slack))
            in_flight = InFlight()
            server = asyncio.create_task(run_serve(
                config, settings, answerer, store, port=port, host="127.0.0.1",
                in_flight=in_flight,
            ))  # fmt: skip
            await until(lambda: listening(port))
            url = f"http://127.0.0.1:{port}/slack/events"
            gate = slack.hold("chat.postMessage")
            async with aiohttp.ClientSession() as session:
                first = mention("how do I roll back?", channel=GENERAL, ts="50.000100",
                                event_id="Ev50", bot_user_id=slack.bot_user_id)  # fmt: skip
                assert (await post_event(session, url, first))[0] == 200
                await slack.wait_for("chat.postMessage")  # the answer is being posted
                os.kill(os.getpid(), signal.SIGTERM)
                await until(lambda: not in_flight.accepting)  # serve's signal handler ran
                late = mention("how long does a deploy take?", channel=GENERAL, ts="50.000200",
                               event_id="Ev51", bot_user_id=slack.bot_user_id)  # fmt: skip
                assert await _refused(session, url, late)
            gate.set()
            await asyncio.wait_for(server, 10)  # returns: SIGTERM is a normal stop
            return [c.params["thread_ts"] for c in slack.posted()]

    with sigterm_caught() as caught:
        posted = asyncio.run(main())
    assert caught == []
    assert posted == ["50.000100"]
    # The refused event was never claimed: its redelivery is answered.
    assert store.claim(MentionKey(TEAM, GENERAL, "50.000200"), "1:next") is Claim.NEW


def test_socket_mode_envelope_refused_during_shutdown_is_not_acknowledged(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    """Socket Mode acknowledges every envelope but this one: Slack must deliver it again."""
    config, answerer = indexed

    async def main() -> list[str]:
        async with fake_slack() as slack:
            settings = socket_settings(with_channels(slack))
            in_flight = InFlight()
            in_flight.close()  # shutdown has begun
            app = build_app(settings, answerer, store, config=config, in_flight=in_flight)
            url = f"{slack.url.replace('http', 'ws', 1)[:-5]}/link"
            connection = SocketModeConnection(app, slack.app_token, url)
            await connection.connect()
            try:
                late = mention("how do I roll back?", channel=GENERAL, ts="52.000100",
                               event_id="Ev52", bot_user_id=slack.bot_user_id)  # fmt: skip
                slack.push_socket(payloads.socket_mode_envelope(late, envelope_id="late"))
                slack.push_socket({"envelope_id": "marker", "type": "events_api"})  # no payload
                await until(lambda: len(slack.socket_acks) >= 1)
                await in_flight.drain(5)
            finally:
                await connection.close()
            return [a["envelope_id"] for a in slack.socket_acks]

    assert asyncio.run(main()) == ["marker"]
    assert store.claim(MentionKey(TEAM, GENERAL, "52.000100"), "1:next") is Claim.NEW
