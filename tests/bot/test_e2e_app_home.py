"""App Home end to end: app_home_opened -> views.publish with what the viewer's DMs may read
(nothing else), how to ask, and the viewer's own recent questions with their status."""

from __future__ import annotations

from typing import Any

from bot.app import Answerer
from bot.store import SQLiteAnswerStore
from retrieval.config import Config
from tests.bot import payloads
from tests.bot.conftest import PAYMENTS_CHANNEL, TEAM
from tests.bot.e2e import ask, run
from tests.bot.fake_slack import FakeSlack
from tests.bot.harness import ASKER, DM, GENERAL, RunningApp


def _opened(user: str = ASKER, event_id: str = "EvHOME1") -> dict[str, Any]:
    return payloads.app_home_opened(
        team=TEAM, user=user, channel=DM, event_id=event_id, bot_user_id="U0DOCBOT"
    )


def _texts(view: dict[str, Any]) -> list[str]:
    return [b["text"]["text"] for b in view["blocks"] if b["type"] == "section"]


def test_app_home_lists_what_the_dm_may_read_and_the_viewers_recent_questions(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    config, answerer = indexed

    async def scenario(slack: FakeSlack, app: RunningApp) -> None:
        await app.send(ask(slack, "how do I roll back a deploy?", GENERAL, "50.000100"))
        await app.send(ask(slack, "what is an unladen swallow's airspeed?", PAYMENTS_CHANNEL,
                           "51.000100"))  # fmt: skip
        await slack.wait_for("chat.postMessage", 2)
        await app.settle()
        await app.send(_opened())
        (published,) = await slack.wait_for("views.publish")
        assert published.params["user_id"] == ASKER
        view = published.params["view"]
        assert view["type"] == "home"
        texts = _texts(view)
        readable = next(t for t in texts if "I can read" in t)
        assert "*handbook*" in readable and "payments" not in readable  # the DM's scope only
        assert any("/docbot" in t for t in texts)
        recent = texts[texts.index("*Your recent questions*") + 1 :]
        assert len(recent) == 2  # newest first: the order they were stored in
        (swallow,) = [t for t in recent if "unladen swallow" in t]
        assert "no verified answer" in swallow and f"<#{PAYMENTS_CHANNEL}>" in swallow
        (rollback,) = [t for t in recent if "roll back a deploy" in t]
        assert ":white_check_mark: answered" in rollback and f"<#{GENERAL}>" in rollback

        await app.send(_opened(user="U0NEWCOMER", event_id="EvHOME2"))
        other = (await slack.wait_for("views.publish", 2))[1]
        assert other.params["user_id"] == "U0NEWCOMER"
        assert "unladen" not in str(other.params["view"])  # nobody else's questions
        assert "not asked me anything yet" in str(other.params["view"])

    run(config, answerer, store, scenario)


def test_app_home_messages_tab_publishes_nothing(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    config, answerer = indexed

    async def scenario(slack: FakeSlack, app: RunningApp) -> None:
        opened = _opened()
        opened["event"]["tab"] = "messages"
        assert (await app.send(opened))[0] == 200
        await app.settle()
        assert not slack.calls_to("views.publish")

    run(config, answerer, store, scenario)
