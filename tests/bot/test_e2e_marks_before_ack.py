"""A feedback mark is in the store before docbot acknowledges it (bot/marks.py), since Slack
never delivers an acknowledged event, press or modal again; and a delivery of it again does not
count twice. Both store backends."""

from __future__ import annotations

import asyncio
import json

from bot.app import Answerer
from bot.render.feedback import FEEDBACK_ACTION, WRONG
from bot.resume import Resumer
from bot.retries import SERVER_ERROR_RETRIES
from bot.store import LEASE_SECONDS, EventKey
from retrieval.config import Config
from tests.bot import payloads
from tests.bot.conftest import TEAM
from tests.bot.e2e import (
    acked_and_logged,
    ask,
    posted_ts,
    posted_unheard,
    reason_submission,
    run,
    stored_reply,
)
from tests.bot.fake_slack import FakeSlack
from tests.bot.harness import (
    ASKER,
    GENERAL,
    RunningApp,
    fake_slack,
    reaction,
    running_app,
    with_channels,
)
from tests.bot.store.conftest import Backend, FakeClock

QUESTION_TS = "81.000100"


def test_app_a_reaction_whose_run_stopped_after_the_ack_is_resolved_after_a_restart(
    indexed: tuple[Config, Answerer], backend: Backend, clock: FakeClock
) -> None:
    """A :x: on a reply the store does not know by its ts yet: after the ack, the read of the
    message back from Slack fails (Slack answers 500), the reaction is kept pending in memory,
    and the process stops. It was recorded before the ack: the restarted process resolves it."""
    config, answerer = indexed
    store = backend.open(clock)
    resumer = Resumer()

    async def main() -> None:
        async with fake_slack() as slack:
            with_channels(slack)
            async with running_app(slack, config, answerer, store) as first:
                gate, post = await posted_unheard(slack, first, QUESTION_TS)  # posted, not marked
                reply_ts = posted_ts(post)
                slack.fail_next("conversations.replies", 500, count=1 + SERVER_ERROR_RETRIES)
                body = reaction(True, "x", channel=GENERAL, item_ts=reply_ts, event_id="Ev81x")
                await acked_and_logged(first, body, "kept until its answer is stored")
            # The first process is gone, with the reaction kept in its memory only.
            assert store.feedback_entries(wrong_only=False) == ()  # not resolved, not lost:
            clock.now += LEASE_SECONDS + 1
            assert EventKey("Ev81x") in {r.key for r in store.resumable(600, 10)}
            async with running_app(slack, config, answerer, store, resumer=resumer) as restarted:
                assert await resumer.sweep() == 2  # the question, unsure of its post, and it
                await restarted.settle()
                await resumer.sweep()  # what the first sweep kept pending, if anything
                await restarted.settle()
                assert await resumer.sweep() == 0  # done
            gate.set()
        (entry,) = store.feedback_entries(wrong_only=True)
        assert (entry.record.reply_ts, entry.record.question_ts) == (reply_ts, QUESTION_TS)
        assert entry.user == ASKER
        (thanks,) = slack.calls_to("chat.postEphemeral")
        assert thanks.params["user"] == ASKER and thanks.params["thread_ts"] == QUESTION_TS

    asyncio.run(main())


def test_app_a_press_and_a_reason_are_stored_before_their_ack_and_once(
    indexed: tuple[Config, Answerer], backend: Backend, clock: FakeClock
) -> None:
    """When Slack has the ack, the mark and the reason are stored; the same press or modal
    delivered again (an unacknowledged Socket Mode envelope is) changes nothing."""
    config, answerer = indexed
    store = backend.open(clock)

    async def scenario(slack: FakeSlack, app: RunningApp) -> None:
        await app.send(ask(slack, "how do I roll back a deploy?", GENERAL, "82.000100"))
        reply_ts = await stored_reply(slack, store)
        await app.settle()
        press = payloads.block_actions(
            FEEDBACK_ACTION, WRONG, team=TEAM, channel=GENERAL, user=ASKER,
            message_ts=reply_ts, thread_ts="82.000100",
        )  # fmt: skip
        assert (await app.interact(press))[0] == 200
        (entry,) = store.feedback_entries(wrong_only=True)  # before anything after the ack
        assert (entry.user, entry.source) == (ASKER, "button")
        assert (await app.interact(press))[0] == 200  # the same press again: not taken back
        view = (await slack.wait_for("views.open"))[0].params["view"]
        submission = reason_submission(view["private_metadata"], "outdated", "step 3 is gone")
        assert (await app.interact(submission))[0] == 200
        (entry,) = store.feedback_entries(wrong_only=True)
        assert [r.text for r in entry.reasons] == ["step 3 is gone"]
        assert (await app.interact(submission))[0] == 200  # the same modal again
        await app.settle()
        (entry,) = store.feedback_entries(wrong_only=True)
        assert [r.text for r in entry.reasons] == ["step 3 is gone"]  # once
        assert json.loads(view["private_metadata"])["reply_ts"] == reply_ts

    run(config, answerer, store, scenario)
