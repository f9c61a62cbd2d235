"""The assistant thread follows its person around Slack, end to end: signed
assistant_thread_started and assistant_thread_context_changed deliveries to the real Bolt app say
which channel they look at, and the thread's next question reads that channel's collections if
they are a member of it (conversations.members, fail closed), else only what the DM may read.
The private payments canary is the witness."""

from __future__ import annotations

from typing import Any

from bot.app import Answerer
from bot.store import SQLiteAnswerStore
from retrieval.config import Config
from tests.bot import payloads
from tests.bot.conftest import CANARY, PAYMENTS_CHANNEL, TEAM
from tests.bot.e2e import reply_text, run
from tests.bot.fake_slack import FakeSlack
from tests.bot.harness import ASKER, DM, GENERAL, RunningApp, direct_message

THREAD = "60.000100"
QUESTION = "what is the secret phrase for the payments vault?"


def _thread_event(kind: str, seen_channel: str | None, event_ts: str) -> dict[str, Any]:
    context = {"team_id": TEAM, "enterprise_id": None}
    if seen_channel is not None:
        context["channel_id"] = seen_channel
    event = {
        "type": kind,
        "assistant_thread": {
            "user_id": ASKER, "channel_id": DM, "thread_ts": THREAD, "context": context,
        },
        "event_ts": event_ts,
    }  # fmt: skip
    event_id = f"Ev{kind[17:21]}{event_ts.replace('.', '')}"
    return payloads.event_callback(event, team=TEAM, event_id=event_id, bot_user_id="U0DOCBOT")


def _in_thread(ts: str) -> dict[str, Any]:
    body = direct_message(QUESTION, channel=DM, ts=ts, event_id=f"EvDM{ts.replace('.', '')}")
    body["event"]["thread_ts"] = THREAD
    return body


async def _answer(slack: FakeSlack, app: RunningApp, ts: str, count: int) -> str:
    assert (await app.send(_in_thread(ts)))[0] == 200
    return reply_text((await slack.wait_for("chat.postMessage", count))[-1])


def test_app_assistant_thread_reads_the_channel_its_member_looks_at(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    config, answerer = indexed

    async def scenario(slack: FakeSlack, app: RunningApp) -> None:
        slack.members[PAYMENTS_CHANNEL] = [ASKER]
        slack.members[GENERAL] = [ASKER]
        await app.send(_thread_event("assistant_thread_started", GENERAL, "60.000100"))
        await app.settle()
        assert CANARY not in await _answer(slack, app, "60.000200", 1)  # general: no payments
        await app.send(_thread_event("assistant_thread_context_changed", PAYMENTS_CHANNEL,
                                     "60.000300"))  # fmt: skip
        await app.settle()
        assert CANARY in await _answer(slack, app, "60.000400", 2)  # followed to payments
        # An older switch delivered late does not take the thread back to general.
        await app.send(_thread_event("assistant_thread_context_changed", GENERAL, "60.000250"))
        await app.settle()
        assert CANARY in await _answer(slack, app, "60.000500", 3)
        # Looking at no channel: the DM's own scope again.
        await app.send(_thread_event("assistant_thread_context_changed", None, "60.000600"))
        await app.settle()
        assert CANARY not in await _answer(slack, app, "60.000700", 4)

    run(config, answerer, store, scenario)


def test_app_assistant_thread_never_reads_a_channel_its_person_is_not_in(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    config, answerer = indexed

    async def scenario(slack: FakeSlack, app: RunningApp) -> None:
        await app.send(_thread_event("assistant_thread_started", PAYMENTS_CHANNEL, "60.000100"))
        await app.settle()
        # conversations.members fails (the fake knows no members there): fail closed.
        assert CANARY not in await _answer(slack, app, "60.000200", 1)
        slack.members[PAYMENTS_CHANNEL] = ["U0SOMEONE"]  # Slack says: not a member
        await app.send(_thread_event("assistant_thread_context_changed", PAYMENTS_CHANNEL,
                                     "60.000300"))  # fmt: skip
        await app.settle()
        assert CANARY not in await _answer(slack, app, "60.000400", 2)
        for call in slack.calls:
            assert CANARY not in call.body, call.method
        slack.members[PAYMENTS_CHANNEL] = ["U0SOMEONE", ASKER]  # joined: counts at once
        assert CANARY in await _answer(slack, app, "60.000500", 3)

    run(config, answerer, store, scenario)
