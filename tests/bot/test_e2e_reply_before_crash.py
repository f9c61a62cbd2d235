"""A reply Slack posted just before its process was killed (the post's answer never came back):
the run that takes the question over finds the reply in the thread and posts nothing, and the
answer, stored before the post, is the reply's: a reaction or a feedback button on it counts.
Two apps on one store, as a killed replica and the one that resumes its question; both store
backends."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from bot.app import Answerer
from bot.render.feedback import FEEDBACK_ACTION, WRONG
from bot.resume import Resumer
from bot.store import LEASE_SECONDS, AnswerStore
from retrieval.config import Config
from tests.bot import payloads
from tests.bot.conftest import TEAM
from tests.bot.e2e import ask, posted_ts
from tests.bot.fake_slack import FakeSlack
from tests.bot.harness import ASKER, GENERAL, RunningApp, reaction, two_replicas
from tests.bot.store.conftest import Backend, FakeClock

QUESTION_TS = "70.000100"

# What a test does on the reply once the next app has taken its question over: given the fake
# Slack, the next app and the reply's ts.
OnTheReply = Callable[[FakeSlack, RunningApp, str], Awaitable[None]]


async def _posted_then_killed(slack: FakeSlack, killed: RunningApp) -> tuple[asyncio.Event, str]:
    """The question asked of `killed`, whose reply Slack posts but never confirms: that run is
    stuck from then on, as a killed process is. The gate that would confirm it, and the reply's
    ts (what Slack gave it, read from the channel)."""
    gate = slack.hold("chat.postMessage", after=True)
    await killed.send(ask(slack, "how do I roll back a deploy?", GENERAL, QUESTION_TS))
    (post,) = await slack.wait_for("chat.postMessage")
    return gate, posted_ts(post)


async def _taken_over(next_app: RunningApp, resumer: Resumer, clock: FakeClock) -> None:
    clock.now += LEASE_SECONDS + 1  # the killed run's lease lapses
    assert await resumer.sweep() == 1
    await next_app.settle()


def _replies(slack: FakeSlack) -> list[str]:
    return [m["ts"] for m in slack.messages[GENERAL] if m.get("thread_ts") == QUESTION_TS]


def _killed_then_taken_over(
    indexed: tuple[Config, Answerer], store: AnswerStore, clock: FakeClock, then: OnTheReply
) -> None:
    """`then` once the next app has taken over a question whose reply Slack posted just before
    the first app's process was killed; the reply is found, not posted again, before and after
    the stuck run ends."""
    config, answerer = indexed
    resumer = Resumer()

    async def main() -> None:
        async with two_replicas(config, answerer, store, resumer=resumer) as replicas:
            slack, killed, next_app = replicas
            gate, reply_ts = await _posted_then_killed(slack, killed)
            await _taken_over(next_app, resumer, clock)
            assert _replies(slack) == [reply_ts]  # found, not posted again
            await then(slack, next_app, reply_ts)
            gate.set()  # the stuck run ends; it neither posts nor stores anything again
            await killed.settle()
        assert _replies(slack) == [reply_ts]

    asyncio.run(main())


def test_app_a_reaction_on_a_reply_posted_just_before_a_crash_is_recorded(
    indexed: tuple[Config, Answerer], backend: Backend, clock: FakeClock
) -> None:
    store = backend.open(clock)

    async def then(slack: FakeSlack, next_app: RunningApp, reply_ts: str) -> None:
        await next_app.send(reaction(True, "x", channel=GENERAL, item_ts=reply_ts,
                                     event_id="Ev70x"))  # fmt: skip
        await next_app.settle()
        (entry,) = store.feedback_entries(wrong_only=True)
        assert entry.record.reply_ts == reply_ts
        assert entry.record.question_ts == QUESTION_TS
        (thanks,) = slack.calls_to("chat.postEphemeral")
        assert thanks.params["user"] == ASKER

    _killed_then_taken_over(indexed, store, clock, then)
    assert len(store.feedback_entries(wrong_only=True)) == 1  # the stuck run's end stored none


def test_app_a_button_on_a_reply_posted_just_before_a_crash_finds_its_answer(
    indexed: tuple[Config, Answerer], backend: Backend, clock: FakeClock
) -> None:
    store = backend.open(clock)

    async def then(slack: FakeSlack, next_app: RunningApp, reply_ts: str) -> None:
        press = payloads.block_actions(
            FEEDBACK_ACTION, WRONG, team=TEAM, channel=GENERAL, user=ASKER,
            message_ts=reply_ts, thread_ts=QUESTION_TS,
        )  # fmt: skip
        await next_app.interact(press)
        await next_app.settle()
        (opened,) = slack.calls_to("views.open")  # the "what was wrong?" modal
        assert opened.params["trigger_id"] == press["trigger_id"]
        record = store.find_answer(TEAM, GENERAL, reply_ts)
        assert record is not None and record.id is not None
        (entry,) = store.feedback_entries(wrong_only=True)
        assert (entry.source, entry.answer_id) == ("button", record.id)

    _killed_then_taken_over(indexed, store, clock, then)
