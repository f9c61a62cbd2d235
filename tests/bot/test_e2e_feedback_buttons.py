"""The feedback buttons end to end: signed block_actions and view_submission payloads to the real
Bolt app; 👍 records helpful, 👎 opens the modal, its answer is stored with the report, a second
press takes a mark back, and reactions keep working beside the buttons.
"""

from __future__ import annotations

import io
import json
from typing import Any

from bot.app import Answerer
from bot.feedback import feedback_command
from bot.render.feedback import (
    CATEGORY_BLOCK,
    FEEDBACK_ACTION,
    REASON_VIEW,
)
from bot.store import SQLiteAnswerStore
from retrieval.config import Config
from tests.bot import payloads
from tests.bot.conftest import TEAM
from tests.bot.e2e import ask, reason_submission, run, stored_reply, until
from tests.bot.fake_slack import FakeSlack
from tests.bot.harness import ASKER, GENERAL, RunningApp, reaction


def _press(value: str, reply_ts: str, *, user: str = ASKER) -> dict[str, Any]:
    return payloads.block_actions(
        FEEDBACK_ACTION, value, team=TEAM, channel=GENERAL, user=user, message_ts=reply_ts,
        thread_ts="20.000100",
    )  # fmt: skip


def _marks(store: SQLiteAnswerStore) -> list[tuple[str, str, str]]:
    return [(e.source, e.kind, e.user) for e in store.feedback_entries(wrong_only=False)]


def test_app_answer_ends_with_feedback_buttons_and_thumbs_up_toggles(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    config, answerer = indexed

    async def scenario(slack: FakeSlack, app: RunningApp) -> None:
        await app.send(ask(slack, "how do I roll back a deploy?", GENERAL, "20.000100"))
        reply_ts = await stored_reply(slack, store)
        (post,) = slack.posted()
        last = post.params["blocks"][-1]
        assert last["type"] == "context_actions"
        assert last["elements"][0]["type"] == "feedback_buttons"
        assert last["elements"][0]["action_id"] == FEEDBACK_ACTION

        assert (await app.interact(_press("helpful", reply_ts)))[0] == 200
        (thanks,) = await slack.wait_for("chat.postEphemeral")
        assert thanks.params["user"] == ASKER and thanks.params["thread_ts"] == "20.000100"
        assert "helped" in thanks.params["text"]
        assert _marks(store) == [("button", "helpful", ASKER)]
        await app.interact(_press("helpful", reply_ts))  # pressed again: taken back
        await slack.wait_for("chat.postEphemeral", 2)
        assert _marks(store) == []
        assert not slack.calls_to("views.open")

    run(config, answerer, store, scenario)


def test_app_thumbs_down_modal_round_trip_is_stored_with_the_report(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    config, answerer = indexed

    async def scenario(slack: FakeSlack, app: RunningApp) -> None:
        await app.send(ask(slack, "how do I roll back a deploy?", GENERAL, "20.000100"))
        reply_ts = await stored_reply(slack, store)
        press = _press("wrong", reply_ts)
        await app.interact(press)
        (opened,) = await slack.wait_for("views.open")
        assert opened.params["trigger_id"] == press["trigger_id"]
        view = opened.params["view"]
        assert view["callback_id"] == REASON_VIEW and view["type"] == "modal"
        assert _marks(store) == [("button", "wrong", ASKER)]

        # Without a choice Slack keeps the modal open with the problem beside the input.
        status, body = await app.interact(
            reason_submission(view["private_metadata"], None, "no idea")
        )
        assert status == 200 and json.loads(body)["response_action"] == "errors"
        assert CATEGORY_BLOCK in json.loads(body)["errors"]
        await app.settle()
        assert store.feedback_entries(wrong_only=True)[0].reasons == ()

        status, body = await app.interact(
            reason_submission(view["private_metadata"], "outdated", "  step 3 is gone now ")
        )
        assert status == 200 and body in ("", "{}")  # the modal closes
        await until(lambda: bool(store.feedback_entries(wrong_only=True)[0].reasons))
        (reason,) = store.feedback_entries(wrong_only=True)[0].reasons
        assert (reason.source, reason.category, reason.text) == ("modal", "outdated",
                                                                 "step 3 is gone now")  # fmt: skip
        (thanks,) = await slack.wait_for("chat.postEphemeral")
        assert "saved what was wrong" in thanks.params["text"]

        # An emoji reaction still counts beside the button, and the report tells them apart.
        await app.send(reaction(True, "x", channel=GENERAL, item_ts=reply_ts, event_id="EvX20"))
        await until(lambda: len(_marks(store)) == 2)
        out = io.StringIO()
        feedback_command(store, wrong_only=True, fmt="text", out=out)
        assert "wrong (feedback button) by U0ASKER" in out.getvalue()
        assert "wrong (reaction :x:) by U0ASKER" in out.getvalue()
        assert "(modal: outdated): step 3 is gone now" in out.getvalue()

    run(config, answerer, store, scenario)


def test_app_feedback_button_on_a_message_that_is_no_answer_records_nothing(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    config, answerer = indexed

    async def scenario(slack: FakeSlack, app: RunningApp) -> None:
        assert (await app.interact(_press("wrong", "99.000100")))[0] == 200
        (said,) = await slack.wait_for("chat.postEphemeral")
        assert "can't find that answer" in said.params["text"]
        other_team = _press("helpful", "99.000100")
        other_team["team"]["id"] = "T0OTHER"
        await app.interact(other_team)
        await app.settle()
        assert len(slack.calls_to("chat.postEphemeral")) == 1
        assert not slack.calls_to("views.open") and _marks(store) == []

    run(config, answerer, store, scenario)
