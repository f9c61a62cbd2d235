"""What follows a private `/docbot` answer: the "Still need help?" note and the word after the
"what was wrong?" modal go to the channel, never to a thread named by the command's ledger key
(a `/docbot` question is no message, so its answer has no thread); a Share the store cannot
serve tells the asker so.
"""

from __future__ import annotations

import contextlib
import sqlite3
from pathlib import Path
from typing import Any

from bot.app import Answerer
from bot.render.commands import SHARE_ACTION
from bot.render.escalation import ESCALATE_ACTION
from bot.render.feedback import FEEDBACK_ACTION
from bot.store import SQLiteAnswerStore
from retrieval.config import Config
from tests.bot import payloads
from tests.bot.conftest import TEAM
from tests.bot.e2e import reason_submission, run, until
from tests.bot.fake_slack import FakeSlack
from tests.bot.harness import ASKER, GENERAL, RunningApp
from tests.bot.test_e2e_escalation import UNANSWERABLE, _notes, _with_owners


async def _private_answer(slack: FakeSlack, app: RunningApp, question: str) -> str:
    await app.command(payloads.slash_command(
        question, team=TEAM, channel=GENERAL, user=ASKER, trigger_id="9.9.aaa"
    ))  # fmt: skip
    (private,) = await slack.wait_for("chat.postEphemeral")
    return str(private.response["message_ts"])


def _pressed(action_id: str, value: str, message_ts: str) -> dict[str, Any]:
    press = payloads.block_actions(
        action_id, value, team=TEAM, channel=GENERAL, user=ASKER, message_ts=message_ts,
        action_type="button",
    )  # fmt: skip
    press["container"]["is_ephemeral"] = True
    return press


def test_app_escalating_a_private_answer_posts_the_note_in_the_channel(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    config, answerer = indexed

    async def scenario(slack: FakeSlack, app: RunningApp) -> None:
        private_ts = await _private_answer(slack, app, UNANSWERABLE)
        await until(lambda: store.find_answer(TEAM, GENERAL, private_ts) is not None)
        await app.interact(_pressed(ESCALATE_ACTION, "answer", private_ts))
        await until(lambda: len(_notes(slack)) == 1)
        (note,) = _notes(slack)
        assert note.params["channel"] == GENERAL and "thread_ts" not in note.params

    run(_with_owners(config), answerer, store, scenario)


def test_app_reason_for_a_private_answer_is_thanked_in_the_channel(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    config, answerer = indexed

    async def scenario(slack: FakeSlack, app: RunningApp) -> None:
        private_ts = await _private_answer(slack, app, "how do I roll back a deploy?")
        await until(lambda: store.find_answer(TEAM, GENERAL, private_ts) is not None)
        await app.interact(_pressed(FEEDBACK_ACTION, "wrong", private_ts))
        (opened,) = await slack.wait_for("views.open")
        metadata = opened.params["view"]["private_metadata"]
        await app.interact(reason_submission(metadata, "incomplete", None))
        thanks = (await slack.wait_for("chat.postEphemeral", 2))[1]
        assert "Thanks, I saved what was wrong" in thanks.params["text"]
        assert thanks.params["channel"] == GENERAL and "thread_ts" not in thanks.params

    run(config, answerer, store, scenario)


def test_app_share_with_a_damaged_store_tells_the_asker_it_failed(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore, tmp_path: Path
) -> None:
    config, answerer = indexed

    async def scenario(slack: FakeSlack, app: RunningApp) -> None:
        private_ts = await _private_answer(slack, app, "how do I roll back a deploy?")
        await until(lambda: store.find_answer(TEAM, GENERAL, private_ts) is not None)
        with contextlib.closing(sqlite3.connect(tmp_path / "answers.sqlite3")) as conn, conn:
            conn.execute("UPDATE answers SET answer_json = 'not an answer'")
        await app.interact(_pressed(SHARE_ACTION, "share", private_ts))
        failed = (await slack.wait_for("chat.postEphemeral", 2))[1]
        assert "could not post the answer in the channel" in failed.params["text"]
        assert slack.posted() == []

    run(config, answerer, store, scenario)
