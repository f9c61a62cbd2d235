"""Socket Mode and feedback marks (bot/marks.py), on a real PostgreSQL server: a reaction's and a
press's envelope is acknowledged once the store holds them; with the server stopped, a
reaction's envelope is left unacknowledged for Slack to deliver again (and recorded when it
is, the server back), and the "what was wrong?" modal stays open, its reason kept, saying it
could not be saved."""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any

from bot.app import Answerer
from bot.render.feedback import CATEGORY_BLOCK, FEEDBACK_ACTION, HELPFUL, reason_not_saved
from bot.serve import run_serve
from bot.store import Claim, EventKey, PostgresAnswerStore
from retrieval.config import Config
from tests.bot import payloads
from tests.bot.conftest import TEAM
from tests.bot.e2e import LogSignal, reason_submission, until
from tests.bot.fake_slack import FakeSlack
from tests.bot.harness import (
    ASKER,
    GENERAL,
    fake_slack,
    mention,
    reaction,
    socket_settings,
    with_channels,
)
from tests.postgres_server import PostgresServer

TS = "1610241741.000500"
OTHER = "101:other"  # another process, asking the ledger about the reaction's event


def _interactive(payload: dict[str, Any], envelope_id: str) -> dict[str, Any]:
    return {"envelope_id": envelope_id, "type": "interactive", "payload": payload,
            "accepts_response_payload": True}  # fmt: skip


async def _acked(slack: FakeSlack, envelope_id: str) -> dict[str, Any]:
    await slack.wait_for_acks({envelope_id}, timeout=10)
    return next(a for a in slack.socket_acks if a["envelope_id"] == envelope_id)


def test_socket_mode_acknowledges_a_mark_once_stored_and_not_while_the_store_is_down(
    indexed: tuple[Config, Answerer], private_postgres: PostgresServer
) -> None:
    config, answerer = indexed
    store = PostgresAnswerStore(private_postgres.create_database("docbot"), timeout_seconds=2)

    async def main() -> None:
        async with fake_slack() as slack:
            settings = socket_settings(slack)
            server = asyncio.create_task(run_serve(config, settings, answerer, store, port=0))
            with_channels(slack)
            question = mention("how do I roll back a deploy?", channel=GENERAL, ts=TS,
                               event_id="EvASK", bot_user_id=slack.bot_user_id)  # fmt: skip
            slack.push_socket(payloads.socket_mode_envelope(question, envelope_id="ask"))
            (post,) = await slack.wait_for("chat.postMessage", timeout=10)
            reply_ts = str(post.response["ts"])
            # The answer is marked posted just after Slack's answer.
            await until(lambda: store.find_answer(TEAM, GENERAL, reply_ts) is not None)
            first = reaction(True, "x", channel=GENERAL, item_ts=reply_ts, event_id="EvR1")
            slack.push_socket(payloads.socket_mode_envelope(first, envelope_id="r1"))
            await _acked(slack, "r1")
            assert store.claim(EventKey("EvR1"), OTHER) in (Claim.BUSY, Claim.DONE)
            press = payloads.block_actions(
                FEEDBACK_ACTION, HELPFUL, team=TEAM, channel=GENERAL, user="U0OTHER",
                message_ts=reply_ts, thread_ts=TS,
            )  # fmt: skip
            slack.push_socket(_interactive(press, "p1"))
            await _acked(slack, "p1")
            assert [e.user for e in store.feedback_entries(False) if e.source == "button"] == [
                "U0OTHER"
            ]

            await asyncio.to_thread(private_postgres.stop)
            second = reaction(True, "x", channel=GENERAL, item_ts=reply_ts, event_id="EvR2",
                              user="U0THIRD")  # fmt: skip
            with LogSignal("docbot.serve", "left for Slack to deliver again") as refused:
                slack.push_socket(payloads.socket_mode_envelope(second, envelope_id="r2"))
                await asyncio.wait_for(refused.event.wait(), 10)
            metadata = json.dumps({"team": TEAM, "channel": GENERAL, "reply_ts": reply_ts})
            slack.push_socket(_interactive(reason_submission(metadata, "outdated", "gone"), "m1"))
            kept_open = await _acked(slack, "m1")

            await asyncio.to_thread(private_postgres.start)
            slack.push_socket(
                payloads.socket_mode_envelope(second, envelope_id="r2", retry_attempt=1)
            )
            await _acked(slack, "r2")
            await until(lambda: len(store.feedback_entries(wrong_only=True)) == 2)  # after its ack
            server.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await server
            acks = [a["envelope_id"] for a in slack.socket_acks]
            assert acks.count("r2") == 1  # the refused delivery was never acknowledged
            assert kept_open["payload"]["response_action"] == "errors"
            assert kept_open["payload"]["errors"][CATEGORY_BLOCK] == reason_not_saved()
            wrong = store.feedback_entries(wrong_only=True)
            assert sorted(e.user for e in wrong) == sorted([ASKER, "U0THIRD"])
            assert all(e.reasons == () for e in wrong)  # the modal's reason: not stored

    try:
        asyncio.run(main())
    finally:
        store.close()
