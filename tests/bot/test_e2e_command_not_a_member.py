"""`/docbot` in a conversation docbot is not a member of: Slack refuses its private reply there
(chat.postEphemeral: not_in_channel, or channel_not_found for a private channel it cannot see),
so the asker hears, through the command's response_url, what is wrong and what to do, instead of
nothing at all."""

from __future__ import annotations

import pytest

from bot.app import Answerer
from bot.store import SQLiteAnswerStore
from retrieval.config import Config
from tests.bot import payloads
from tests.bot.conftest import TEAM
from tests.bot.e2e import run
from tests.bot.fake_slack import FakeSlack
from tests.bot.harness import ASKER, GENERAL, RunningApp


@pytest.mark.parametrize("refusal", ["not_in_channel", "channel_not_found"])
@pytest.mark.parametrize("question", ["how do I roll back a deploy?", ""])
def test_app_command_where_docbot_is_not_a_member_says_to_invite_it(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore, refusal: str, question: str
) -> None:
    config, answerer = indexed

    async def scenario(slack: FakeSlack, app: RunningApp) -> None:
        slack.refuse("chat.postEphemeral", refusal)
        command = payloads.slash_command(
            question, team=TEAM, channel=GENERAL, user=ASKER, trigger_id="9.9.out",
            response_url=slack.response_url(f"{TEAM}/1/hook"),
        )  # fmt: skip
        assert (await app.command(command))[0] == 200
        (said,) = await slack.wait_for("response_url")
        assert said.params["response_type"] == "ephemeral"
        assert "not a member of this conversation" in said.params["text"]
        assert "/invite @docbot" in said.params["text"]
        assert said.params["blocks"][0]["text"]["text"].startswith(":wave:")
        await app.settle()
        assert slack.posted() == []  # nothing in the channel either

    run(config, answerer, store, scenario)
