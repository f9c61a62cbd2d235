""" "Still need help?" when Slack posts the owners' note but its answer is lost (a 500, a dropped
connection): docbot reads the thread for the note's metadata before it lets anyone ask again, so
the owners are pinged once; a definite refusal frees the claim at once; and when the thread
cannot be read either, the presser is told, and their next press looks before it posts.
"""

from __future__ import annotations

from typing import Any

import pytest

from bot.app import Answerer
from bot.escalation_notes import NOTE_EVENT_TYPE
from bot.render.escalation import ESCALATE_ACTION
from bot.store import SQLiteAnswerStore
from retrieval.config import Config
from tests.bot.conftest import TEAM
from tests.bot.e2e import run, until
from tests.bot.fake_slack import FakeSlack
from tests.bot.harness import ASKER, GENERAL, RunningApp
from tests.bot.store.conftest import Backend, FakeClock
from tests.bot.test_e2e_command_followups import _pressed, _private_answer
from tests.bot.test_e2e_escalation import (
    TEAMMATE,
    UNANSWERABLE,
    _not_found_reply,
    _press,
    _with_owners,
)

THREAD = "30.000100"  # the question's ts: _not_found_reply asks it as a new thread


def _notes_in(slack: FakeSlack, channel: str, thread: str | None = THREAD) -> list[dict[str, Any]]:
    """The escalation notes Slack holds where docbot posts them (a thread, else the channel)."""
    return [
        m for m in slack.messages.get(channel, [])
        if "still needs help" in m["text"] and m.get("thread_ts") == thread
    ]  # fmt: skip


def _said(slack: FakeSlack) -> list[str]:
    """What docbot told the pressers, in order (the first ephemeral is no press's)."""
    return [str(c.params["text"]) for c in slack.calls_to("chat.postEphemeral")]


async def _press_and_settle(app: RunningApp, payload: dict[str, Any]) -> None:
    await app.interact(payload)
    await app.settle()


@pytest.mark.parametrize("lost", [500, None], ids=["http-500", "dropped-connection"])
def test_app_a_note_slack_posted_without_saying_so_is_not_posted_again(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore, lost: int | None
) -> None:
    config, answerer = indexed

    async def scenario(slack: FakeSlack, app: RunningApp) -> None:
        slack.members[GENERAL] = [ASKER, TEAMMATE]
        reply_ts = await _not_found_reply(slack, app, GENERAL)
        await until(lambda: store.find_answer(TEAM, GENERAL, reply_ts) is not None)
        slack.lose_next_answer("chat.postMessage", lost)
        await _press_and_settle(app, _press(GENERAL, reply_ts, ASKER))
        await _press_and_settle(app, _press(GENERAL, reply_ts, TEAMMATE))
        (note,) = _notes_in(slack, GENERAL)
        assert note["metadata"]["event_type"] == NOTE_EVENT_TYPE
        assert note["metadata"]["event_payload"]["question_ts"] == THREAD
        first, second = _said(slack)
        assert first.startswith("Done: I asked the people who own these docs")
        assert "already asked" in second

    run(_with_owners(config), answerer, store, scenario)


def test_app_a_rate_limited_note_frees_the_claim_without_looking(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    """A 429 that outlasts the client's retries is Slack turning the post away before acting
    on it: nothing to look for, so the thread is not read; the claim is freed and the next
    press posts the one note."""
    config, answerer = indexed

    async def scenario(slack: FakeSlack, app: RunningApp) -> None:
        reply_ts = await _not_found_reply(slack, app, GENERAL)
        await until(lambda: store.find_answer(TEAM, GENERAL, reply_ts) is not None)
        slack.fail_next("chat.postMessage", 429, count=3, retry_after=1)
        await _press_and_settle(app, _press(GENERAL, reply_ts, ASKER))
        assert _notes_in(slack, GENERAL) == []
        assert len(slack.calls_to("chat.postMessage")) == 1 + 3  # the reply; 1 try, 2 retries
        await _press_and_settle(app, _press(GENERAL, reply_ts, ASKER))
        assert len(_notes_in(slack, GENERAL)) == 1
        assert slack.calls_to("conversations.replies") == []
        failed, done = _said(slack)
        assert "could not post the request" in failed and done.startswith("Done")

    run(_with_owners(config), answerer, store, scenario)


def test_app_a_refused_note_frees_the_claim_without_looking(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    """Slack's own refusal (not_in_channel) says nothing was posted: no look in the thread, and
    the next press may ask; the note that then goes out carries its question's metadata."""
    config, answerer = indexed

    async def scenario(slack: FakeSlack, app: RunningApp) -> None:
        reply_ts = await _not_found_reply(slack, app, GENERAL)
        await until(lambda: store.find_answer(TEAM, GENERAL, reply_ts) is not None)
        slack.refuse("chat.postMessage", "not_in_channel")
        await _press_and_settle(app, _press(GENERAL, reply_ts, ASKER))
        slack.allow("chat.postMessage")
        await _press_and_settle(app, _press(GENERAL, reply_ts, ASKER))
        assert slack.calls_to("conversations.replies") == []
        (note,) = _notes_in(slack, GENERAL)
        assert note["metadata"] == {
            "event_type": NOTE_EVENT_TYPE,
            "event_payload": {"question_ts": THREAD, "answer_id": 1},
        }
        failed, done = _said(slack)
        assert "could not post the request" in failed and done.startswith("Done")

    run(_with_owners(config), answerer, store, scenario)


@pytest.mark.parametrize("posted", [True, False], ids=["posted", "not-posted"])
def test_app_a_note_that_cannot_be_looked_for_is_kept_and_looked_for_on_the_next_press(
    indexed: tuple[Config, Answerer], backend: Backend, clock: FakeClock, posted: bool
) -> None:
    """The post's answer is lost and the thread cannot be read: the claim is kept (a second
    note on a guess could double it) and the presser told; the next press reads the thread
    first, and posts only when the note is missing. On both store backends (the claim)."""
    config, answerer = indexed
    any_store = backend.open(clock)

    async def scenario(slack: FakeSlack, app: RunningApp) -> None:
        slack.members[GENERAL] = [ASKER, TEAMMATE]
        reply_ts = await _not_found_reply(slack, app, GENERAL)
        await until(lambda: any_store.find_answer(TEAM, GENERAL, reply_ts) is not None)
        if posted:
            slack.lose_next_answer("chat.postMessage", 500)
        else:
            slack.fail_next("chat.postMessage", 500)
        slack.fail_next("conversations.replies", 500, count=3)  # the client retries twice
        await _press_and_settle(app, _press(GENERAL, reply_ts, ASKER))
        await _press_and_settle(app, _press(GENERAL, reply_ts, TEAMMATE))
        await _press_and_settle(app, _press(GENERAL, reply_ts, TEAMMATE))
        assert len(_notes_in(slack, GENERAL)) == 1
        unconfirmed, second, third = _said(slack)
        assert "did not confirm" in unconfirmed and "press *Still need help?* again" in unconfirmed
        if posted:
            assert "already asked" in second and "already asked" in third
        else:
            assert second.startswith("Done") and "already asked" in third
            assert "<@U0TEAMMATE> still needs help" in _notes_in(slack, GENERAL)[0]["text"]

    run(_with_owners(config), answerer, any_store, scenario)


def test_app_a_private_answers_note_is_looked_for_in_the_channel(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    """A `/docbot` answer is in no thread, so its note is in the channel: that is where docbot
    looks (conversations.history) when the post's answer is lost."""
    config, answerer = indexed

    async def scenario(slack: FakeSlack, app: RunningApp) -> None:
        private_ts = await _private_answer(slack, app, UNANSWERABLE)
        await until(lambda: store.find_answer(TEAM, GENERAL, private_ts) is not None)
        slack.lose_next_answer("chat.postMessage", 500)
        await _press_and_settle(app, _pressed(ESCALATE_ACTION, "answer", private_ts))
        await _press_and_settle(app, _pressed(ESCALATE_ACTION, "answer", private_ts))
        assert len(_notes_in(slack, GENERAL, None)) == 1
        assert slack.calls_to("conversations.history")
        done, again = _said(slack)[1:]
        assert done.startswith("Done") and "already asked" in again

    run(_with_owners(config), answerer, store, scenario)
