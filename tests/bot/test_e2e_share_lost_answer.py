""" "Share in channel" when Slack posts the copy but its answer is lost (a 500, a dropped
connection): docbot reads the channel for the copy's metadata instead of posting it again, so the
channel sees one copy; when the channel cannot be read either, the asker is told, the claim is
left to lapse, and the next press looks before it posts. On both store backends (the claim).
"""

from __future__ import annotations

from typing import Any

import pytest

from bot.app import Answerer
from bot.render.commands import SHARE_ACTION
from bot.share import SHARED_EVENT_TYPE
from bot.store import LEASE_SECONDS, SQLiteAnswerStore
from retrieval.config import Config
from tests.bot.conftest import TEAM
from tests.bot.e2e import run, until
from tests.bot.fake_slack import FakeSlack
from tests.bot.harness import GENERAL, RunningApp
from tests.bot.store.conftest import Backend, FakeClock
from tests.bot.test_e2e_command_followups import _pressed, _private_answer

QUESTION = "how do I roll back a deploy?"


def _copies(slack: FakeSlack) -> list[dict[str, Any]]:
    """The shared copies Slack holds in the channel."""
    return [m for m in slack.messages.get(GENERAL, []) if "asked with `/docbot`" in m["text"]]


def _said(slack: FakeSlack) -> list[str]:
    """What docbot told the asker after the private answer, in order."""
    return [str(c.params["text"]) for c in slack.calls_to("chat.postEphemeral")[1:]]


async def _share(app: RunningApp, private_ts: str) -> None:
    await app.interact(_pressed(SHARE_ACTION, "share", private_ts))
    await app.settle()


@pytest.mark.parametrize("lost", [500, None], ids=["http-500", "dropped-connection"])
def test_app_a_copy_slack_posted_without_saying_so_is_not_posted_again(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore, lost: int | None
) -> None:
    config, answerer = indexed

    async def scenario(slack: FakeSlack, app: RunningApp) -> None:
        private_ts = await _private_answer(slack, app, QUESTION)
        await app.settle()
        slack.lose_next_answer("chat.postMessage", lost)
        await _share(app, private_ts)
        await _share(app, private_ts)
        (copy,) = _copies(slack)
        assert copy["metadata"] == {
            "event_type": SHARED_EVENT_TYPE, "event_payload": {"answer_ts": private_ts},
        }  # fmt: skip
        assert store.find_answer(TEAM, GENERAL, copy["ts"]) is not None  # takes feedback
        assert _said(slack) == ["This answer is in the channel already."]

    run(config, answerer, store, scenario)


@pytest.mark.parametrize("posted", [True, False], ids=["posted", "not-posted"])
def test_app_a_copy_that_cannot_be_looked_for_is_looked_for_once_the_claim_lapses(
    indexed: tuple[Config, Answerer], backend: Backend, clock: FakeClock, posted: bool
) -> None:
    config, answerer = indexed
    store = backend.open(clock)  # on a clock the test moves: a claim left open lapses

    async def scenario(slack: FakeSlack, app: RunningApp) -> None:
        private_ts = await _private_answer(slack, app, QUESTION)
        await app.settle()
        if posted:
            slack.lose_next_answer("chat.postMessage", 500)
        else:
            slack.fail_next("chat.postMessage", 500)
        slack.fail_next("conversations.history", 500, count=3)  # the client retries twice
        await _share(app, private_ts)
        assert "did not confirm" in _said(slack)[0]
        await _share(app, private_ts)  # the claim is not given up: no second copy on a guess
        clock.now += LEASE_SECONDS + 1
        await _share(app, private_ts)  # lapsed: look, then post only if missing
        await _share(app, private_ts)
        (copy,) = _copies(slack)
        await until(lambda: store.find_answer(TEAM, GENERAL, copy["ts"]) is not None)
        already = "This answer is in the channel already."
        assert _said(slack)[1:] == ([already] * 3 if posted else [already, already])

    run(config, answerer, store, scenario)
