"""The Slack Web API failing end to end: rate-limited and failing posts are retried or kept,
and the :eyes: reaction never holds up an answer.
"""

from __future__ import annotations

import time

from bot.app import Answerer
from bot.store import SQLiteAnswerStore
from retrieval.config import Config
from tests.bot.conftest import TEAM
from tests.bot.e2e import (
    ask,
    reply_text,
    run,
)
from tests.bot.fake_slack import FakeSlack
from tests.bot.harness import (
    GENERAL,
    RunningApp,
)


def test_app_rate_limited_post_is_retried_and_lands(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    config, answerer = indexed

    async def scenario(slack: FakeSlack, app: RunningApp) -> None:
        slack.fail_next("chat.postMessage", 429, retry_after=1)
        await app.send(ask(slack, "how do I roll back a deploy?", GENERAL, "10.000100"))
        first, second = await slack.wait_for("chat.postMessage", 2)
        assert first.params == second.params
        assert first.status == 429 and second.response.get("ok")
        # Slack's Retry-After was honoured: the client asked to wait it (plus up to 1 s of
        # jitter); the test's RetryPolicy records the wait instead of spending it.
        assert len(app.waits.seconds) == 1 and 1.0 <= app.waits.seconds[0] < 2.0
        await app.settle()
        assert store.thread_questions(TEAM, GENERAL, "10.000100") == (
            "how do I roll back a deploy?",
        )

    run(config, answerer, store, scenario)


def test_app_eyes_never_hold_up_the_answer(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    """:eyes: is cosmetic: a slow reactions.add must not delay the reply, and the removal still
    comes once the add has been answered (else the :eyes: would stay)."""
    config, answerer = indexed

    async def scenario(slack: FakeSlack, app: RunningApp) -> None:
        slack.refuse("assistant.threads.setStatus", "not_allowed")  # no AI-app status here
        gate = slack.hold("reactions.add")
        await app.send(ask(slack, "how do I roll back a deploy?", GENERAL, "18.000100"))
        (post,) = await slack.wait_for("chat.postMessage")
        assert "Sources" in reply_text(post)
        assert slack.calls_to("reactions.remove") == []  # the add is still unanswered
        released = time.monotonic()
        gate.set()
        (remove,) = await slack.wait_for("reactions.remove")
        assert remove.at >= released and remove.params["name"] == "eyes"

    run(config, answerer, store, scenario)


def test_app_rate_limited_eyes_are_dropped_not_waited_for(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    """A 429 on reactions.add would otherwise stall the answer for Retry-After (minutes)."""
    config, answerer = indexed

    async def scenario(slack: FakeSlack, app: RunningApp) -> None:
        slack.refuse("assistant.threads.setStatus", "not_allowed")  # no AI-app status here
        slack.fail_next("reactions.add", 429, retry_after=30)
        await app.send(ask(slack, "how do I roll back a deploy?", GENERAL, "19.000100"))
        (post,) = await slack.wait_for("chat.postMessage")
        assert "Sources" in reply_text(post)
        await app.settle()
        assert len(slack.calls_to("reactions.add")) == 1  # not retried
        assert slack.calls_to("reactions.remove") == []  # nothing was added, nothing to remove

    run(config, answerer, store, scenario)


def test_app_failed_post_is_logged_and_the_answer_kept(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    config, answerer = indexed

    async def scenario(slack: FakeSlack, app: RunningApp) -> None:
        slack.fail_next("chat.postMessage", 500, count=8)  # 1 try; a look; 1 + 2 retries; twice
        await app.send(ask(slack, "how do I roll back a deploy?", GENERAL, "11.000100"))
        await app.send(ask(slack, "how long does a production deploy take?", GENERAL, "11.000200"))
        await app.settle(timeout=10)
        assert slack.posted() == []
        for ts in ("11.000100", "11.000200"):
            record = store.find_answer(TEAM, GENERAL, f"unposted:{ts}")
            assert record is not None and record.question_ts == ts
            assert record.answer.status == "answered"

    run(config, answerer, store, scenario)
