"""A reaction event whose claim an older docbot recorded (its payload keeps no event time) is
resolved by the sweep like any other, but cannot be put in Slack's order against the other
events of the same reaction (bot/store/reaction_order.py): it is counted as resolved, and the
log says so, with what to check. Both store backends."""

from __future__ import annotations

import json
import logging

import pytest

from bot.app import Answerer
from bot.events import parse_reaction
from bot.reactions import reaction_payload
from bot.resume import Resumer
from bot.store import LEASE_SECONDS, EventKey
from retrieval.config import Config
from tests.bot.e2e import ask, run, stored_reply
from tests.bot.fake_slack import FakeSlack
from tests.bot.harness import GENERAL, RunningApp, reaction
from tests.bot.store.conftest import Backend, FakeClock

OLDER = "998:0ldd0cb0"


def test_app_an_older_docbots_reaction_without_a_time_counts_and_says_it_is_unordered(
    indexed: tuple[Config, Answerer], backend: Backend, clock: FakeClock,
    caplog: pytest.LogCaptureFixture,
) -> None:  # fmt: skip
    config, answerer = indexed
    store = backend.open(clock)
    resumer = Resumer()
    caplog.set_level(logging.WARNING, "docbot.slack")

    async def scenario(slack: FakeSlack, app: RunningApp) -> None:
        await app.send(ask(slack, "how do I roll back a deploy?", GENERAL, "86.000100"))
        reply_ts = await stored_reply(slack, store)
        await app.settle()
        body = reaction(True, "x", channel=GENERAL, item_ts=reply_ts, event_id="Ev86old")
        parsed = parse_reaction(body)
        assert parsed is not None
        fields = json.loads(reaction_payload(parsed, slack.bot_user_id, added=True))
        del fields["event_ts"]  # as an older docbot wrote it
        store.claim(EventKey("Ev86old"), OLDER, json.dumps(fields))  # and then stopped
        clock.now += LEASE_SECONDS + 1
        assert await resumer.sweep() == 1
        await app.settle()
        (entry,) = store.feedback_entries(wrong_only=True)
        assert entry.record.reply_ts == reply_ts
        (said,) = [r.getMessage() for r in caplog.records if "no event time" in r.getMessage()]
        assert "Ev86old" in said and "older docbot" in said

    run(config, answerer, store, scenario, resumer=resumer)
