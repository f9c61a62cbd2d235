"""The "Ask docbot about this" shortcut on a message docbot has answered already: the person
who chose it is told so, to them only, with Slack's link to the existing answer; nothing is
answered twice."""

from __future__ import annotations

from bot.app import Answerer
from bot.interactive import SHORTCUT
from bot.store import SQLiteAnswerStore
from retrieval.config import Config
from tests.bot import payloads
from tests.bot.conftest import TEAM
from tests.bot.e2e import ask, run, stored_reply
from tests.bot.fake_slack import FakeSlack
from tests.bot.harness import ASKER, GENERAL, RunningApp

OTHER = "U0OTHER"
QUESTION_TS = "41.000100"


def _shortcut(trigger: str, user: str) -> dict[str, object]:
    return payloads.message_action(
        SHORTCUT, team=TEAM, channel=GENERAL, user=user, message_ts=QUESTION_TS,
        message_text="how do I roll back a deploy?", author=ASKER, trigger_id=trigger,
    )  # fmt: skip


def test_app_shortcut_on_an_answered_message_links_to_the_answer(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    config, answerer = indexed

    async def scenario(slack: FakeSlack, app: RunningApp) -> None:
        await app.send(ask(slack, "how do I roll back a deploy?", GENERAL, QUESTION_TS))
        reply_ts = await stored_reply(slack, store)

        assert (await app.interact(_shortcut("3.3.a", OTHER)))[0] == 200
        (told,) = await slack.wait_for("chat.postEphemeral")
        assert told.params["user"] == OTHER and told.params["channel"] == GENERAL
        (link,) = [c.response["permalink"] for c in slack.calls_to("chat.getPermalink")]
        assert f"p{reply_ts.replace('.', '')}" in link
        assert f"<{link}|" in told.params["text"] and "answered this message" in told.params["text"]
        await app.settle()
        assert len(slack.calls_to("chat.postMessage")) == 1  # not answered again

    run(config, answerer, store, scenario)
