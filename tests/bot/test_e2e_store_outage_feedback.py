"""Feedback and App Home while the PostgreSQL store is down (a real server, stopped): the person is
told their press was not saved, App Home still opens, and the log says the outage once (the
store's own line), not once more with a traceback for every press or visit."""

from __future__ import annotations

import asyncio
import logging

import pytest

from bot.app import Answerer
from bot.render.feedback import FEEDBACK_ACTION, feedback_failed
from bot.store import PostgresAnswerStore
from retrieval.config import Config
from tests.bot import payloads
from tests.bot.conftest import TEAM
from tests.bot.e2e import ask, stored_reply
from tests.bot.harness import ASKER, DM, GENERAL, fake_slack, running_app, with_channels
from tests.postgres_server import PostgresServer


def test_feedback_and_app_home_while_the_store_is_down_log_the_outage_once(
    indexed: tuple[Config, Answerer],
    private_postgres: PostgresServer,
    caplog: pytest.LogCaptureFixture,
) -> None:
    config, answerer = indexed
    caplog.set_level(logging.INFO)
    store = PostgresAnswerStore(private_postgres.create_database("docbot"), timeout_seconds=2)

    async def main() -> tuple[list[str], int]:
        async with fake_slack() as slack, running_app(
            with_channels(slack), config, answerer, store
        ) as app:  # fmt: skip
            await app.send(ask(slack, "how do I roll back a deploy?", GENERAL, "20.000100"))
            reply_ts = await stored_reply(slack, store)
            await app.settle()
            await asyncio.to_thread(private_postgres.stop)
            for value in ("helpful", "wrong"):
                press = payloads.block_actions(
                    FEEDBACK_ACTION, value, team=TEAM, channel=GENERAL, user=ASKER,
                    message_ts=reply_ts, thread_ts="20.000100",
                )  # fmt: skip
                await app.interact(press)
            told = await slack.wait_for("chat.postEphemeral", 2)
            opened = payloads.app_home_opened(
                team=TEAM, user=ASKER, channel=DM, event_id="EvHOME1", bot_user_id="U0DOCBOT"
            )
            await app.send(opened)
            (home,) = await slack.wait_for("views.publish")
            await app.settle()
            return [c.params["text"] for c in told], len(home.params["view"]["blocks"])

    try:
        told, home_blocks = asyncio.run(main())
    finally:
        store.close()
    assert told == [feedback_failed().text] * 2
    assert home_blocks > 0
    lost = [r for r in caplog.records if "cannot be reached" in r.getMessage()]
    assert len(lost) == 1, caplog.text
    assert [r for r in caplog.records if r.levelno >= logging.ERROR] == [], caplog.text
    assert "Traceback" not in caplog.text
