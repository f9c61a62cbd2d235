"""Questions left unfinished are resumed without waiting for Slack: a process killed after the
ack (Slack never delivers that event again) or a reply that could not be posted is answered by
the next sweep, once its claim has lapsed; a live claim is left to its owner."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Sequence
from pathlib import Path

from slack_bolt.request.async_request import AsyncBoltRequest

from bot.app import Answerer, InFlight, build_app
from bot.events import parse_turn
from bot.resume import Resumer
from bot.store import LEASE_SECONDS, Claim, MentionKey, SQLiteAnswerStore
from retrieval.config import Config
from tests.bot.conftest import TEAM
from tests.bot.harness import (
    GENERAL,
    fake_slack,
    mention,
    running_app,
    settings_for,
    signature,
    with_channels,
)
from tests.bot.store.conftest import FakeClock

DEAD = "999:deadbeef"


def _acknowledged_then_killed(store: SQLiteAnswerStore, ts: str, bot_user_id: str) -> None:
    """What a killed process leaves: the claim with its message, never renewed again."""
    body = mention("how do I roll back a deploy?", channel=GENERAL, ts=ts,
                   event_id=f"Ev{ts.replace('.', '')}", bot_user_id=bot_user_id)  # fmt: skip
    turn = parse_turn(body, bot_user_id)
    assert turn is not None
    assert store.claim(MentionKey(TEAM, GENERAL, ts), DEAD, turn.to_payload()) is Claim.NEW


def test_resume_answers_a_question_whose_process_died_without_a_redelivery(
    indexed: tuple[Config, Answerer], tmp_path: Path
) -> None:
    config, answerer = indexed
    clock = FakeClock()
    store = SQLiteAnswerStore(tmp_path / "s.db", clock=clock)

    async def main() -> list[str]:
        async with fake_slack() as slack:
            _acknowledged_then_killed(store, "60.000100", slack.bot_user_id)
            in_flight, resumer = InFlight(), Resumer()
            build_app(settings_for(with_channels(slack)), answerer, store, config=config,
                      in_flight=in_flight, resumer=resumer)  # fmt: skip
            assert await resumer.sweep() == 0  # the dead owner's lease is still running
            clock.now += LEASE_SECONDS + 1
            assert await resumer.sweep() == 1
            await in_flight.drain(10)
            assert await resumer.sweep() == 0  # done
            return [c.params["thread_ts"] for c in slack.posted()]

    assert asyncio.run(main()) == ["60.000100"]
    store.close()


def test_resume_retries_a_reply_that_could_not_be_posted(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    """Slack does not deliver an acknowledged event again: the sweep is its second chance."""
    config, answerer = indexed
    resumer = Resumer()

    async def main() -> list[str]:
        async with fake_slack() as slack, running_app(
            with_channels(slack), config, answerer, store, resumer=resumer
        ) as app:  # fmt: skip
            slack.fail_next("chat.postMessage", 500, count=4)  # 1 try; a look; 1 + 2 retries
            body = mention("how do I roll back a deploy?", channel=GENERAL, ts="61.000100",
                           event_id="Ev61", bot_user_id=slack.bot_user_id)  # fmt: skip
            await app.send(body)
            await app.settle()
            assert slack.posted() == []
            assert await resumer.sweep() == 1  # given up unfinished: no lease to wait for
            await app.settle()
            return [c.params["thread_ts"] for c in slack.posted()]

    assert asyncio.run(main()) == ["61.000100"]


def test_resume_question_is_claimed_before_bolt_acknowledges_it(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    """Slack never delivers an acknowledged event again, so the claim (with the message, for
    resuming) must exist by the time the ack does: nothing between ack and claim to lose."""
    config, answerer = indexed

    async def main() -> Claim:
        async with fake_slack() as slack:
            in_flight = InFlight()
            app = build_app(settings_for(with_channels(slack)), answerer, store, config=config,
                            in_flight=in_flight)  # fmt: skip
            body = json.dumps(mention("how do I roll back a deploy?", channel=GENERAL,
                                      ts="62.000100", event_id="Ev62",
                                      bot_user_id=slack.bot_user_id))  # fmt: skip
            stamp = int(time.time())
            headers: dict[str, str | Sequence[str]] = {
                "content-type": "application/json", "x-slack-request-timestamp": str(stamp),
                "x-slack-signature": signature(body, stamp),
            }  # fmt: skip
            ack = await app.async_dispatch(AsyncBoltRequest(body=body, headers=headers))
            assert ack.status == 200
            # The listener's task may not have run yet; the ledger already holds the message.
            held = store.claim(MentionKey(TEAM, GENERAL, "62.000100"), "1:other")
            await in_flight.drain(10)
            return held

    assert asyncio.run(main()) is Claim.BUSY
