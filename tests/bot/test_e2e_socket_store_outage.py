"""Socket Mode while the PostgreSQL store is down (a real server, stopped): a question's envelope
is left unacknowledged, for Slack to deliver again, and Slack's last try (`retry_attempt` 3, the
envelope's own retry counter) is acknowledged and answered without a claim, so a long outage
loses no question."""

from __future__ import annotations

import asyncio
import contextlib

from bot.app import Answerer
from bot.serve import run_serve
from bot.store import PostgresAnswerStore
from retrieval.config import Config
from tests.bot import payloads
from tests.bot.e2e import LogSignal, reply_text
from tests.bot.harness import GENERAL, fake_slack, mention, socket_settings, with_channels
from tests.postgres_server import PostgresServer

TS = "1610241741.000300"


def test_socket_mode_refuses_while_the_store_is_down_and_answers_slacks_last_try(
    indexed: tuple[Config, Answerer], private_postgres: PostgresServer
) -> None:
    config, answerer = indexed
    store = PostgresAnswerStore(private_postgres.create_database("docbot"), timeout_seconds=2)

    async def main() -> None:
        async with fake_slack() as slack:
            payload = mention("how do I roll back a deploy?", channel=GENERAL, ts=TS,
                              event_id="EvDOWN", bot_user_id=slack.bot_user_id)  # fmt: skip
            settings = socket_settings(slack)
            await asyncio.to_thread(private_postgres.stop)
            with LogSignal("docbot.serve", "left for Slack to deliver again") as refused:
                server = asyncio.create_task(run_serve(config, settings, answerer, store, port=0))
                with_channels(slack)
                slack.push_socket(payloads.socket_mode_envelope(payload, envelope_id="first"))
                await asyncio.wait_for(refused.event.wait(), 10)
            slack.push_socket(
                payloads.socket_mode_envelope(payload, envelope_id="last", retry_attempt=3)
            )
            (post,) = await slack.wait_for("chat.postMessage", timeout=10)
            await slack.wait_for_acks({"last"})
            server.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await server
            assert [a["envelope_id"] for a in slack.socket_acks] == ["last"]
            assert post.params["thread_ts"] == TS
            assert "deploy/rollback.md" in reply_text(post)

    try:
        asyncio.run(main())
    finally:
        store.close()
