"""A question taken over from a run that died mid-post, when Slack's history limit turns away the
read of the thread (conversations.replies answers 429, as it does for an app outside the
Marketplace that used its one call of the minute): the takeover does not wait the 429 out and
does not answer again; it defers, keeping the claim out of every replica's reach until the
Retry-After has passed, and the next sweep after it reads the thread, finds the reply and posts
nothing. When Slack keeps refusing until the window for a question whose run began posting would
close (an hour), the question is answered again, once, logged. Two replicas on one store; both
backends."""

from __future__ import annotations

import asyncio
import logging

import pytest

from bot.app import Answerer
from bot.leases import RESUME_WINDOW_SECONDS, UNSURE_WINDOW_SECONDS
from bot.metrics import Metrics
from bot.resume import Resumer
from bot.store import LEASE_SECONDS
from retrieval.config import Config
from tests.bot.conftest import TEAM
from tests.bot.e2e import ask, posted_ts
from tests.bot.fake_slack import FakeSlack
from tests.bot.fake_slack_limits import RateLimit
from tests.bot.harness import GENERAL, RunningApp, two_replicas
from tests.bot.store.conftest import Backend, FakeClock

QUESTION_TS = "90.000100"
MINUTE = 60.0


def _replies(slack: FakeSlack) -> list[str]:
    return [m["ts"] for m in slack.messages[GENERAL] if m.get("thread_ts") == QUESTION_TS]


async def _posted_then_killed(slack: FakeSlack, killed: RunningApp) -> tuple[asyncio.Event, str]:
    """The question asked of `killed`, whose reply Slack posts but never confirms (as if its
    process died then); the gate that would confirm it, and the reply's ts. Posts after it are
    answered at once."""
    gate = slack.hold("chat.postMessage", after=True)
    await killed.send(ask(slack, "how do I roll back a deploy?", GENERAL, QUESTION_TS))
    (post,) = await slack.wait_for("chat.postMessage")
    slack.unhold("chat.postMessage")
    return gate, posted_ts(post)


def test_app_a_takeover_whose_thread_read_is_rate_limited_defers_and_never_posts_twice(
    indexed: tuple[Config, Answerer], backend: Backend, clock: FakeClock
) -> None:
    config, answerer = indexed
    store = backend.open(clock)
    resumer = Resumer()

    async def main() -> None:
        async with two_replicas(config, answerer, store, resumer=resumer) as replicas:
            slack, killed, other = replicas
            limit = slack.rate_limit("conversations.replies", RateLimit(1, MINUTE, clock))
            assert limit.admit() is None  # this minute's one call is spent
            gate, reply_ts = await _posted_then_killed(slack, killed)
            clock.now += LEASE_SECONDS + 1  # the killed run's lease lapses
            assert await resumer.sweep() == 1
            await other.settle()
            (read,) = slack.calls_to("conversations.replies")
            assert read.status == 429 and other.waits.seconds == []  # not waited out
            assert _replies(slack) == [reply_ts]  # not answered again
            clock.now += 20  # the Retry-After is the minute's rest, 29 s: not passed yet
            assert await resumer.sweep() == 0  # deferred: no replica takes it meanwhile
            await other.send(ask(slack, "how do I roll back a deploy?", GENERAL, QUESTION_TS),
                             retry=1)  # fmt: skip
            await other.settle()
            assert len(slack.calls_to("conversations.replies")) == 1
            clock.now += MINUTE
            assert await resumer.sweep() == 1
            await other.settle()
            assert len(slack.calls_to("conversations.replies")) == 2
            assert _replies(slack) == [reply_ts]
            found = store.posted_answer(TEAM, GENERAL, QUESTION_TS)
            assert found is not None and found.reply_ts == reply_ts  # the staged answer, marked
            clock.now += RESUME_WINDOW_SECONDS
            assert await resumer.sweep() == 0  # done
            gate.set()
            await killed.settle()
        assert _replies(slack) == [reply_ts]

    asyncio.run(main())


def test_app_a_takeover_slack_never_lets_read_is_answered_once_within_the_window(
    indexed: tuple[Config, Answerer], backend: Backend, clock: FakeClock,
    caplog: pytest.LogCaptureFixture,
) -> None:  # fmt: skip
    """Slack refuses every read (no call of the method is let through): the takeover defers
    after each Retry-After, past the 15-minute resume window, until one more would end past the
    hour a question whose run began posting is resumed for; then it answers again, once, and
    says so, rather than let the question go unanswered."""
    config, answerer = indexed
    store = backend.open(clock)
    resumer = Resumer()
    metrics = Metrics()
    caplog.set_level(logging.WARNING, "docbot.slack")

    async def main() -> None:
        async with two_replicas(config, answerer, store, resumer=resumer, metrics=metrics) as (
            replicas
        ):
            slack, killed, other = replicas
            slack.rate_limit("conversations.replies", RateLimit(0, MINUTE, clock))
            asked = clock.now
            gate, reply_ts = await _posted_then_killed(slack, killed)
            clock.now += LEASE_SECONDS + 1
            sweeps = 0
            while len(_replies(slack)) == 1 and sweeps < 90:
                sweeps += await resumer.sweep()
                await other.settle()
                clock.now += MINUTE + 1
            assert len(_replies(slack)) == 2  # answered again, once
            assert sweeps > 50  # it waited out Retry-Afters for most of the hour first
            assert RESUME_WINDOW_SECONDS < clock.now - asked <= UNSURE_WINDOW_SECONDS + MINUTE + 1
            found = store.posted_answer(TEAM, GENERAL, QUESTION_TS)
            assert found is not None and found.reply_ts != reply_ts
            clock.now += MINUTE
            assert await resumer.sweep() == 0
            gate.set()
            await killed.settle()
        assert len(_replies(slack)) == 2
        assert any("answering again" in r.getMessage() for r in caplog.records)
        # What an admin sees: the one question answered without its thread read.
        unchecked = {"reason": "rate_limited"}
        assert metrics.registry.get_sample_value("docbot_takeovers_unchecked_total", unchecked) == 1

    asyncio.run(main())


def test_app_more_takeovers_than_the_window_holds_reads_each_answer_once(
    indexed: tuple[Config, Answerer], backend: Backend, clock: FakeClock
) -> None:
    """A run killed with 8 replies in flight, all posted by Slack and none confirmed, at one
    read of a thread each 3 minutes (Slack's one a minute, slowed so that 8 takeovers are more
    than the 15-minute resume window can read: 5): each takeover must read its thread, one a
    window, oldest first, so the last read comes some 24 minutes after the questions. Each is
    still read before anything is posted, and none is answered twice (on main, those the
    window's end reached first were answered again)."""
    config, answerer = indexed
    store = backend.open(clock)
    resumer = Resumer()
    questions = [f"91.{n:06d}" for n in range(1, 9)]
    per = 3 * MINUTE

    async def main() -> None:
        async with two_replicas(config, answerer, store, resumer=resumer) as replicas:
            slack, killed, other = replicas

            def replies(ts: str) -> list[str]:
                return [m["ts"] for m in slack.messages[GENERAL] if m.get("thread_ts") == ts]

            limit = slack.rate_limit("conversations.replies", RateLimit(1, per, clock))
            gate = slack.hold("chat.postMessage", after=True)
            for ts in questions:
                await killed.send(ask(slack, "how do I roll back a deploy?", GENERAL, ts))
            await slack.wait_for("chat.postMessage", len(questions))
            slack.unhold("chat.postMessage")
            asked = clock.now
            clock.now += LEASE_SECONDS + 1
            windows = 0
            while any(store.posted_answer(TEAM, GENERAL, ts) is None for ts in questions):
                await resumer.sweep()
                await other.settle()
                clock.now += per + 1
                windows += 1
                assert windows < 20
            assert [len(replies(ts)) for ts in questions] == [1] * len(questions)
            assert limit.turned_away > 0 and clock.now - asked > RESUME_WINDOW_SECONDS
            for ts in questions:
                found = store.posted_answer(TEAM, GENERAL, ts)
                assert found is not None and found.reply_ts == replies(ts)[0]
            assert await resumer.sweep() == 0  # all done
            gate.set()
            await killed.settle()

    asyncio.run(main())
