"""A :x: whose run stored the mark and was killed before thanking (and inviting a reason): when
Slack delivers the reaction again (its ack never reached Slack), the run taking the event over
thanks and invites the reason, rather than finding the mark stored and saying nothing. Both
store backends."""

from __future__ import annotations

from bot.app import Answerer
from bot.store import LEASE_SECONDS, EventKey
from retrieval.config import Config
from tests.bot.conftest import TEAM
from tests.bot.e2e import ask, run, stored_reply
from tests.bot.fake_slack import FakeSlack
from tests.bot.harness import ASKER, GENERAL, RunningApp, reaction
from tests.bot.store.conftest import Backend, FakeClock

DEAD = "999:deadbeef"


def test_app_a_reaction_redelivered_after_its_run_died_is_thanked_once_recorded(
    indexed: tuple[Config, Answerer], backend: Backend, clock: FakeClock
) -> None:
    config, answerer = indexed
    store = backend.open(clock)

    async def scenario(slack: FakeSlack, app: RunningApp) -> None:
        await app.send(ask(slack, "how do I roll back a deploy?", GENERAL, "9.000100"))
        reply_ts = await stored_reply(slack, store)
        await app.settle()
        record = store.find_answer(TEAM, GENERAL, reply_ts)
        assert record is not None and record.id is not None
        # What the killed run left: the event's claim and the mark, nothing said.
        store.claim(EventKey("Ev9x"), DEAD)
        store.add_feedback(record.id, ASKER, "wrong", "x", "2026-12-01T23:00:00+00:00")
        clock.now += LEASE_SECONDS + 1
        body = reaction(True, "x", channel=GENERAL, item_ts=reply_ts, event_id="Ev9x")
        await app.send(body, retry=1)
        await app.settle()
        (thanks,) = slack.calls_to("chat.postEphemeral")
        assert thanks.params["user"] == ASKER and thanks.params["thread_ts"] == "9.000100"
        assert store.pending_reason(TEAM, GENERAL, "9.000100", ASKER) == record.id
        assert len(store.feedback_entries(wrong_only=True)) == 1  # stored once
        await app.send(body, retry=2)  # done now: nothing more
        await app.settle()
        assert len(slack.calls_to("chat.postEphemeral")) == 1

    run(config, answerer, store, scenario)
