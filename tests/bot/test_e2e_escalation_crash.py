""" "Still need help?" when the process holding a question's claim is killed between the claim
and knowing whether its note was posted: the claim is a lease, so the owners are not lost. A
press while it runs is told to press again if no note shows up (not that the owners were asked);
the first press after it lapses takes the claim over, looks for the note, and posts it only if
it is missing. On both store backends (the claim)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from bot.app import Answerer
from bot.escalation_notes import NOTE_EVENT_TYPE
from bot.store import ESCALATION_LEASE_SECONDS, AnswerStore
from retrieval.config import Config
from tests.bot.conftest import TEAM
from tests.bot.e2e import run, until
from tests.bot.fake_slack import FakeSlack
from tests.bot.harness import ASKER, GENERAL, RunningApp
from tests.bot.store.conftest import Backend, FakeClock
from tests.bot.test_e2e_escalation import TEAMMATE, _not_found_reply, _press, _with_owners
from tests.bot.test_e2e_escalation_lost_answer import THREAD, _notes_in, _said
from tests.grounding import fake_clock

DEAD = "U0DEADPRESS"  # who pressed in the process that was killed

AfterKill = Callable[[FakeSlack, RunningApp, AnswerStore, str], Awaitable[None]]


async def _killed_after_claiming(slack: FakeSlack, app: RunningApp, store: AnswerStore) -> str:
    """A not-found reply whose escalation a press claimed in a process that was then killed
    (what that process left in the store); the reply's ts."""
    slack.members[GENERAL] = [ASKER, TEAMMATE, DEAD]
    reply_ts = await _not_found_reply(slack, app, GENERAL)
    await until(lambda: store.find_answer(TEAM, GENERAL, reply_ts) is not None)
    record = store.find_answer(TEAM, GENERAL, reply_ts)
    assert record is not None and record.id is not None
    assert store.claim_escalation(record.id, DEAD, "2026-12-01T19:00:00+00:00") is True
    return reply_ts


async def _press_and_settle(app: RunningApp, payload: dict[str, Any]) -> None:
    await app.interact(payload)
    await app.settle()


def _after_a_killed_claim(
    indexed: tuple[Config, Answerer], backend: Backend, clock: FakeClock, then: AfterKill
) -> None:
    """`then` (given the store and the reply's ts) once a killed process's claim is stored."""
    config, answerer = indexed
    store = backend.open(clock)

    async def scenario(slack: FakeSlack, app: RunningApp) -> None:
        await then(slack, app, store, await _killed_after_claiming(slack, app, store))

    run(_with_owners(config), answerer, store, scenario)


def _note_slack_posted(slack: FakeSlack, reply_ts: str, user: str, **payload: Any) -> None:
    """The note Slack posted in the question's thread for a process that never heard back."""
    slack.messages[GENERAL].append({
        "type": "message", "ts": f"{float(reply_ts) + 5:.6f}", "thread_ts": THREAD,
        "text": f"<@{user}> still needs help with this question",
        "metadata": {"event_type": NOTE_EVENT_TYPE,
                     "event_payload": {"question_ts": THREAD, **payload}},
    })  # fmt: skip


def test_app_a_claim_whose_process_died_before_posting_is_posted_after_the_lease(
    indexed: tuple[Config, Answerer], backend: Backend, clock: FakeClock
) -> None:
    async def then(slack: FakeSlack, app: RunningApp, store: AnswerStore, reply_ts: str) -> None:
        await _press_and_settle(app, _press(GENERAL, reply_ts, ASKER))  # within the lease
        assert _notes_in(slack, GENERAL) == [] and slack.calls_to("conversations.replies") == []
        clock.now += ESCALATION_LEASE_SECONDS
        await _press_and_settle(app, _press(GENERAL, reply_ts, TEAMMATE))
        (note,) = _notes_in(slack, GENERAL)
        assert "<@U0TEAMMATE> still needs help" in note["text"]
        (looked,) = slack.calls_to("conversations.replies")  # looked before posting
        assert looked.params["ts"] == THREAD
        clock.now += 10 * ESCALATION_LEASE_SECONDS
        await _press_and_settle(app, _press(GENERAL, reply_ts, ASKER))
        assert len(_notes_in(slack, GENERAL)) == 1
        assert len(slack.calls_to("conversations.replies")) == 1  # confirmed: no more looks
        waiting, done, again = _said(slack)
        assert "has not confirmed the request yet" in waiting and "within 2 minutes" in waiting
        assert "already asked" not in waiting
        assert done.startswith("Done") and "already asked" in again

    _after_a_killed_claim(indexed, backend, clock, then)


def test_app_a_note_posted_by_a_process_killed_before_it_knew_is_not_posted_again(
    indexed: tuple[Config, Answerer], backend: Backend, clock: FakeClock
) -> None:
    async def then(slack: FakeSlack, app: RunningApp, store: AnswerStore, reply_ts: str) -> None:
        record = store.find_answer(TEAM, GENERAL, reply_ts)
        assert record is not None
        _note_slack_posted(slack, reply_ts, DEAD, answer_id=record.id)  # the dead process's note
        clock.now += ESCALATION_LEASE_SECONDS + 1
        await _press_and_settle(app, _press(GENERAL, reply_ts, TEAMMATE))
        await _press_and_settle(app, _press(GENERAL, reply_ts, ASKER))
        assert len(_notes_in(slack, GENERAL)) == 1 and slack.posted()[1:] == []
        assert len(slack.calls_to("conversations.replies")) == 1
        assert ["already asked" in said for said in _said(slack)] == [True, True]

    _after_a_killed_claim(indexed, backend, clock, then)


@pytest.mark.parametrize("posted", [True, False], ids=["posted", "not-posted"])
def test_app_a_post_slack_does_not_answer_within_half_the_lease_is_given_up_on(
    indexed: tuple[Config, Answerer], store: AnswerStore, posted: bool
) -> None:
    """A live holder stops waiting on Slack before its lease could lapse (a later press could
    then take the claim over while the post is still in flight): it keeps the claim, unsure,
    and says so; the next press looks first. The wait is timed on a fake clock the test moves
    on, not in real time."""
    config, answerer = indexed
    clock = fake_clock.FakeClock()
    feedback = config.feedback.model_copy(update={"escalation_lease_seconds": 1.0})
    config = _with_owners(config).model_copy(update={"feedback": feedback})

    async def scenario(slack: FakeSlack, app: RunningApp) -> None:
        reply_ts = await _not_found_reply(slack, app, GENERAL)
        await until(lambda: store.find_answer(TEAM, GENERAL, reply_ts) is not None)
        gate = slack.hold("chat.postMessage")
        posts = len(slack.calls_to("chat.postMessage"))
        await app.interact(_press(GENERAL, reply_ts, ASKER))
        await slack.wait_for("chat.postMessage", posts + 1)  # the note's post, unanswered
        (expires,) = clock.deadlines()
        assert expires - clock.now() == 0.5  # half the lease
        clock.advance(0.5)
        (unconfirmed,) = await slack.wait_for("chat.postEphemeral")
        assert "did not confirm" in str(unconfirmed.params["text"])
        await app.settle()
        slack.unhold("chat.postMessage")
        if posted:  # Slack had posted it, and its answer never came
            _note_slack_posted(slack, reply_ts, ASKER)
        await _press_and_settle(app, _press(GENERAL, reply_ts, ASKER))
        assert len(_notes_in(slack, GENERAL)) == 1
        assert len(slack.calls_to("conversations.replies")) == 1  # looked before posting
        _, second = _said(slack)
        assert ("already asked" in second) if posted else second.startswith("Done")
        gate.set()  # lets the fake finish the request the app gave up on

    run(config, answerer, store, scenario, clock=clock)
