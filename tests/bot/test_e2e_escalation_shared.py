""" "Still need help?" on a `/docbot` answer and on its shared copy in the channel: two messages,
two stored rows, one question, so the owners are asked once, whichever is pressed first and by
whom; the later presser is told the owners were already asked.
"""

from __future__ import annotations

import pytest

from bot.app import Answerer
from bot.render.commands import SHARE_ACTION
from bot.render.escalation import ESCALATE_ACTION
from bot.store import SQLiteAnswerStore
from retrieval.config import Config
from tests.bot.conftest import TEAM
from tests.bot.e2e import posted_ts, run
from tests.bot.fake_slack import FakeSlack
from tests.bot.harness import ASKER, GENERAL, RunningApp
from tests.bot.test_e2e_command_followups import _pressed, _private_answer
from tests.bot.test_e2e_escalation import TEAMMATE, UNANSWERABLE, _notes, _press, _with_owners


@pytest.mark.parametrize("private_first", [True, False])
def test_app_a_shared_not_found_is_escalated_once_with_its_private_answer(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore, private_first: bool
) -> None:
    config, answerer = indexed

    async def scenario(slack: FakeSlack, app: RunningApp) -> None:
        slack.members[GENERAL] = [ASKER, TEAMMATE]
        private_ts = await _private_answer(slack, app, UNANSWERABLE)
        await app.settle()  # the command's handler has stored the answer it posted
        assert store.find_answer(TEAM, GENERAL, private_ts) is not None
        await app.interact(_pressed(SHARE_ACTION, "share", private_ts))
        (shared,) = await slack.wait_for("chat.postMessage")
        shared_ts = posted_ts(shared)
        assert shared.params["blocks"][-1]["elements"][0]["action_id"] == ESCALATE_ACTION
        await app.settle()
        assert store.find_answer(TEAM, GENERAL, shared_ts) is not None
        on_private = _pressed(ESCALATE_ACTION, "answer", private_ts)
        on_shared = _press(GENERAL, shared_ts, TEAMMATE)
        for press in (on_private, on_shared) if private_first else (on_shared, on_private):
            await app.interact(press)
            await app.settle()
        (note,) = _notes(slack)
        first = ASKER if private_first else TEAMMATE
        assert (
            note.params["channel"] == GENERAL
            and f"<@{first}> still needs help" in note.params["text"]
        )
        said = [c.params["text"] for c in slack.calls_to("chat.postEphemeral")[1:]]
        assert len(said) == 2 and "already asked" in said[1] and "already asked" not in said[0]

    run(_with_owners(config), answerer, store, scenario)
