"""A reason given in the thread after a :x:, whose run stored it and was killed before saying so:
the run that resumes the message finds the reason already stored (its invitation is gone, so it
would otherwise answer the reason as a new question), says it was saved, and stores it once. On
both store backends."""

from __future__ import annotations

from bot.app import Answerer
from bot.events import parse_turn
from bot.resume import Resumer
from bot.store import LEASE_SECONDS, MentionKey
from retrieval.config import Config
from tests.bot.conftest import TEAM
from tests.bot.e2e import ask, reply_text, run, stored_reply
from tests.bot.fake_slack import FakeSlack
from tests.bot.harness import ASKER, GENERAL, RunningApp, reaction
from tests.bot.store.conftest import Backend, FakeClock

DEAD = "999:deadbeef"
REASON = "it skips the migration step"


def test_app_a_reason_stored_by_a_run_that_died_is_not_answered_as_a_question(
    indexed: tuple[Config, Answerer], backend: Backend, clock: FakeClock
) -> None:
    config, answerer = indexed
    store = backend.open(clock)
    resumer = Resumer()

    async def scenario(slack: FakeSlack, app: RunningApp) -> None:
        await app.send(ask(slack, "how do I roll back a deploy?", GENERAL, "8.000100"))
        reply_ts = await stored_reply(slack, store)
        await app.send(reaction(True, "x", channel=GENERAL, item_ts=reply_ts, event_id="Ex"))
        await slack.wait_for("chat.postEphemeral")
        await app.settle()
        record = store.find_answer(TEAM, GENERAL, reply_ts)
        assert record is not None and record.id is not None
        # The reason's run claimed its message before the ack, stored the reason (which
        # answers the invitation), and was killed before its reply.
        body = ask(slack, REASON, GENERAL, "8.000300", thread_ts="8.000100")
        turn = parse_turn(body, slack.bot_user_id)
        assert turn is not None
        store.claim(MentionKey(TEAM, GENERAL, "8.000300"), DEAD, turn.to_payload())
        store.add_reason(record.id, ASKER, REASON, "2026-12-01T20:00:00+00:00")
        clock.now += LEASE_SECONDS + 1
        assert await resumer.sweep() == 1
        await app.settle()
        _answer, saved = slack.posted()
        assert saved.params["thread_ts"] == "8.000100"
        assert "saved that with the report" in reply_text(saved)
        (entry,) = store.feedback_entries(wrong_only=True)
        assert [r.text for r in entry.reasons] == [REASON]  # once
        assert await resumer.sweep() == 0  # done

    run(config, answerer, store, scenario, resumer=resumer)
