"""Progress while docbot works (bot/working.py): Slack's AI-app status with the pipeline's stages
where Slack allows it, :eyes: where it does not; never a status left over after the reply."""

from __future__ import annotations

import asyncio

from slack_sdk.web.async_client import AsyncWebClient

from bot.app import Answerer
from bot.events import Turn
from bot.refusals import Refusals
from bot.render.live import WORKING
from bot.replies import cosmetic_client
from bot.store import SQLiteAnswerStore
from bot.working import Working
from grounding.progress import Checking, Reading, Searching
from retrieval.config import Config
from tests.bot.conftest import TEAM
from tests.bot.e2e import ask, reply_text, run
from tests.bot.fake_slack import FakeSlack
from tests.bot.harness import GENERAL, RunningApp, fake_slack

STAGES = ["is working on it…", "Searching handbook…", "Reading 2 passages…", "Checking 2 claims…"]


def _in_order(seen: list[str], expected: list[str]) -> bool:
    """`seen` is `expected` with some entries left out (the newest status wins), in order."""
    rest = iter(expected)
    return all(any(s == e for e in rest) for s in seen)


def test_status_shows_each_stage_in_order_on_the_question_thread() -> None:
    """Driven one stage at a time (each after Slack answered the last), every stage is shown,
    in order, with its loading message, on the question's thread; nothing after stop()."""
    turn = Turn("Ev1", TEAM, GENERAL, "5.000100", None, "U0ASKER", "q", "channel", False)

    async def main() -> None:
        async with fake_slack() as slack:
            client = cosmetic_client(AsyncWebClient(token=slack.token, base_url=slack.url))
            async with Working(client, turn, Refusals()) as working:
                await slack.wait_for("assistant.threads.setStatus", 1)
                for n, event in enumerate((Searching(("handbook",)), Reading(2), Checking(2)), 2):
                    working.report(event)
                    await slack.wait_for("assistant.threads.setStatus", n)
                await working.stop()
                working.report(Checking(3))  # after stop: never shown
                working.posted = True
            assert slack.statuses() == STAGES
            calls = slack.calls_to("assistant.threads.setStatus")
            assert {(c.params["channel_id"], c.params["thread_ts"]) for c in calls} == {
                (GENERAL, "5.000100")
            }
            assert [c.params["loading_messages"] for c in calls[1:]] == [[s] for s in STAGES[1:]]
            assert slack.calls_to("reactions.add") == []

    asyncio.run(main())


def test_app_status_replaces_eyes_and_ends_before_the_reply(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    config, answerer = indexed

    async def scenario(slack: FakeSlack, app: RunningApp) -> None:
        await app.send(ask(slack, "how do I roll back a deploy?", GENERAL, "40.000100"))
        (post,) = await slack.wait_for("chat.postMessage")
        await app.settle()
        assert "Sources" in reply_text(post)
        assert slack.statuses()[0] == WORKING.text and _in_order(slack.statuses(), STAGES[:3])
        assert all(c.at <= post.at for c in slack.calls_to("assistant.threads.setStatus"))
        assert [c.method for c in slack.calls if c.method.startswith("reactions.")] == []

    run(config, answerer, store, scenario)


def test_app_refused_status_falls_back_to_eyes_and_is_not_asked_again(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    """A workspace that refuses setStatus in its own words gets :eyes:, at once the next time."""
    config, answerer = indexed

    async def scenario(slack: FakeSlack, app: RunningApp) -> None:
        slack.refuse("assistant.threads.setStatus", "not_allowed")
        for ts in ("41.000100", "41.000200"):
            await app.send(ask(slack, "how do I roll back a deploy?", GENERAL, ts))
            await app.settle()
        assert len(slack.calls_to("assistant.threads.setStatus")) == 1
        reacted = [(c.method, c.params["timestamp"]) for c in slack.calls
                   if c.method.startswith("reactions.")]  # fmt: skip
        assert reacted == [
            ("reactions.add", "41.000100"), ("reactions.remove", "41.000100"),
            ("reactions.add", "41.000200"), ("reactions.remove", "41.000200"),
        ]  # fmt: skip
        assert len(slack.posted()) == 2

    run(config, answerer, store, scenario)


def test_app_status_error_uses_eyes_this_once(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    """A 500 says nothing about the feature: :eyes: this time, the status again next time."""
    config, answerer = indexed

    async def scenario(slack: FakeSlack, app: RunningApp) -> None:
        slack.fail_next("assistant.threads.setStatus", 500)
        await app.send(ask(slack, "how do I roll back a deploy?", GENERAL, "42.000100"))
        await app.settle()
        await app.send(ask(slack, "how do I roll back a deploy?", GENERAL, "42.000200"))
        await app.settle()
        assert [c.params["timestamp"] for c in slack.calls_to("reactions.add")] == ["42.000100"]
        assert slack.statuses()[0] == WORKING.text
        assert {c.params["thread_ts"] for c in slack.calls_to("assistant.threads.setStatus")} == {
            "42.000100", "42.000200"
        }  # fmt: skip

    run(config, answerer, store, scenario)


def test_app_status_is_cleared_when_no_reply_could_be_posted(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    """A posted reply clears the status itself; when the post failed, docbot clears it."""
    config, answerer = indexed

    async def scenario(slack: FakeSlack, app: RunningApp) -> None:
        slack.fail_next("chat.postMessage", 500, count=4)  # 1 try; a look; 1 + 2 retries
        await app.send(ask(slack, "how do I roll back a deploy?", GENERAL, "43.000100"))
        await app.settle()
        assert slack.posted() == []
        assert slack.statuses()[-1] == ""

    run(config, answerer, store, scenario)
