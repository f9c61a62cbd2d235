"""The messages tab's suggested prompts end to end: a signed assistant_thread_started delivery to
the real Bolt app -> assistant.threads.setSuggestedPrompts with questions drawn from the top
headings of what the thread's questions may read: the channel the person is looking at when they
are a member of it (conversations.members, fail closed), else what their DM may read; a private
channel's collection never shows to someone not in that channel."""

from __future__ import annotations

from typing import Any

from bot.app import Answerer
from bot.render.home import PROMPTS_TITLE
from bot.store import SQLiteAnswerStore
from retrieval.config import Config
from tests.bot import payloads
from tests.bot.conftest import PAYMENTS_CHANNEL, TEAM
from tests.bot.e2e import run
from tests.bot.fake_slack import FakeSlack
from tests.bot.harness import ASKER, DM, RunningApp

HANDBOOK_HEADINGS = {"Deploying", "Rolling back", "On-call"}  # tests/bot/corpus/handbook/


def _started(event_id: str, thread_ts: str, seen_channel: str) -> dict[str, Any]:
    event = {
        "type": "assistant_thread_started",
        "assistant_thread": {
            "user_id": ASKER, "channel_id": DM, "thread_ts": thread_ts,
            "context": {"channel_id": seen_channel, "team_id": TEAM, "enterprise_id": None},
        },
        "event_ts": thread_ts,
    }  # fmt: skip
    return payloads.event_callback(event, team=TEAM, event_id=event_id, bot_user_id="U0DOCBOT")


def test_app_suggests_prompts_from_the_dms_readable_headings_only(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    config, answerer = indexed

    async def scenario(slack: FakeSlack, app: RunningApp) -> None:
        assert (await app.send(_started("EvTHREAD1", "60.000100", PAYMENTS_CHANNEL)))[0] == 200
        (call,) = await slack.wait_for("assistant.threads.setSuggestedPrompts")
        assert call.params["channel_id"] == DM and call.params["thread_ts"] == "60.000100"
        assert call.params["title"] == PROMPTS_TITLE
        prompts = call.params["prompts"]
        titles = [p["title"] for p in prompts]
        assert set(titles) == HANDBOOK_HEADINGS  # every top heading the DM may read, no more
        assert "Payments" not in str(prompts)  # the private collection never shows
        assert all(p["message"].endswith("?") and p["title"] in p["message"] for p in prompts)

        await app.send(_started("EvTHREAD2", "61.000100", DM))  # the same prompts, same order
        again = (await slack.wait_for("assistant.threads.setSuggestedPrompts", 2))[1]
        assert again.params["prompts"] == prompts

    run(config, answerer, store, scenario)


def test_app_suggests_the_prompts_of_the_channel_its_member_looks_at(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    config, answerer = indexed

    async def scenario(slack: FakeSlack, app: RunningApp) -> None:
        slack.members[PAYMENTS_CHANNEL] = [ASKER]
        await app.send(_started("EvTHREAD1", "60.000100", PAYMENTS_CHANNEL))
        (call,) = await slack.wait_for("assistant.threads.setSuggestedPrompts")
        titles = {p["title"] for p in call.params["prompts"]}
        assert "Payments API keys" in titles  # the channel's private collection, for its member
        assert titles - {"Payments API keys"} <= HANDBOOK_HEADINGS

        slack.members[PAYMENTS_CHANNEL] = ["U0SOMEONE"]  # left the channel: the DM's prompts
        await app.send(_started("EvTHREAD2", "61.000100", PAYMENTS_CHANNEL))
        again = (await slack.wait_for("assistant.threads.setSuggestedPrompts", 2))[1]
        assert {p["title"] for p in again.params["prompts"]} == HANDBOOK_HEADINGS

    run(config, answerer, store, scenario)
