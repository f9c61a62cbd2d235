""" "Still need help?" when the owners' note is posted but the store fails as the claim is marked
confirmed: the presser is told the owners were asked (the note is in the thread), not that it
could not be posted; the claim stays unconfirmed, so after its lease the next press looks, finds
the note and posts nothing more."""

from __future__ import annotations

import logging
from typing import cast

import pytest

from bot.app import Answerer
from bot.store import AnswerStore, SQLiteAnswerStore
from retrieval.config import Config
from tests.bot.conftest import TEAM
from tests.bot.e2e import run, until
from tests.bot.fake_slack import FakeSlack
from tests.bot.harness import ASKER, GENERAL, RunningApp
from tests.bot.test_e2e_app_failures import FailingStore
from tests.bot.test_e2e_escalation import _not_found_reply, _press, _with_owners
from tests.bot.test_e2e_escalation_lost_answer import _notes_in, _said


def test_app_a_note_posted_whose_confirmation_is_not_stored_is_told_as_done(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore, caplog: pytest.LogCaptureFixture
) -> None:
    config, answerer = indexed
    broken = cast(AnswerStore, FailingStore(store, "confirm_escalation"))

    async def scenario(slack: FakeSlack, app: RunningApp) -> None:
        reply_ts = await _not_found_reply(slack, app, GENERAL)
        await until(lambda: store.find_answer(TEAM, GENERAL, reply_ts) is not None)
        await app.interact(_press(GENERAL, reply_ts, ASKER))
        await app.settle()
        assert len(_notes_in(slack, GENERAL)) == 1
        (said,) = _said(slack)
        assert said.startswith("Done"), said
        record = store.find_answer(TEAM, GENERAL, reply_ts)
        assert record is not None and record.id is not None
        assert store.escalation_pending(record.id) is True  # left to lapse, then looked for

    with caplog.at_level(logging.ERROR):
        run(_with_owners(config), answerer, broken, scenario)
    assert any("confirm" in r.getMessage() for r in caplog.records if r.name == "docbot.slack")
