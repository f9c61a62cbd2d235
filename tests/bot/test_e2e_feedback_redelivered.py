"""A feedback press, or a "what was wrong?" form, that Slack delivers again (its retry of the
same payload) is a repeat: stored once (bot/marks.py), and neither counted in /metrics again
nor answered again (no second "recorded", no second form). Both store backends, over HTTP
(with Slack's retry headers) and in Socket Mode (the same envelope again)."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from bot.app import Answerer, InFlight
from bot.metrics import Metrics
from bot.render.feedback import FEEDBACK_ACTION, HELPFUL, WRONG
from bot.serve import run_serve
from bot.store import AnswerStore
from retrieval.config import Config
from tests.bot import payloads
from tests.bot.conftest import TEAM
from tests.bot.e2e import ask, reason_submission, stored_reply, until
from tests.bot.fake_slack import FakeSlack
from tests.bot.harness import (
    ASKER,
    GENERAL,
    fake_slack,
    running_app,
    socket_settings,
    with_channels,
)
from tests.bot.store.conftest import Backend, FakeClock
from tests.bot.test_e2e_metrics import scrape

QUESTION_TS = "91.000100"
WRONG_ADDED = ("docbot_feedback_marks_total", (("change", "added"), ("kind", "wrong")))
HELPFUL_ADDED = ("docbot_feedback_marks_total", (("change", "added"), ("kind", "helpful")))


def _press(value: str, reply_ts: str, user: str = ASKER) -> dict[str, Any]:
    return payloads.block_actions(
        FEEDBACK_ACTION, value, team=TEAM, channel=GENERAL, user=user, message_ts=reply_ts,
        thread_ts=QUESTION_TS,
    )  # fmt: skip


def _told(slack: FakeSlack, user: str) -> int:
    return sum(c.params.get("user") == user for c in slack.calls_to("chat.postEphemeral"))


def test_app_a_press_and_a_form_delivered_again_are_counted_and_answered_once(
    indexed: tuple[Config, Answerer], backend: Backend, clock: FakeClock
) -> None:
    config, answerer = indexed
    store = backend.open(clock)

    async def main() -> None:
        async with fake_slack() as slack:
            with_channels(slack)
            async with running_app(slack, config, answerer, store, metrics=Metrics()) as app:
                await app.send(ask(slack, "how do I roll back a deploy?", GENERAL, QUESTION_TS))
                reply_ts = await stored_reply(slack, store)
                await app.settle()
                wrong = _press(WRONG, reply_ts)
                assert (await app.interact(wrong))[0] == 200
                (opened,) = await slack.wait_for("views.open")
                await app.settle()
                assert (await app.interact(wrong, retry=1))[0] == 200  # Slack's retry of it
                await app.settle()
                helpful = _press(HELPFUL, reply_ts, user="U0OTHER")
                assert (await app.interact(helpful))[0] == 200
                await until(lambda: _told(slack, "U0OTHER") == 1)  # "recorded"
                await app.settle()
                assert (await app.interact(helpful, retry=1))[0] == 200
                await app.settle()
                metadata = opened.params["view"]["private_metadata"]
                form = reason_submission(metadata, "outdated", "step 3 is gone")
                assert (await app.interact(form))[0] == 200
                await until(lambda: _told(slack, ASKER) == 1)  # "thanks"
                await app.settle()
                assert (await app.interact(form, retry=1))[0] == 200
                await app.settle()
                counted = await scrape(app)
        assert counted[WRONG_ADDED] == 1 and counted[HELPFUL_ADDED] == 1
        assert len(slack.calls_to("views.open")) == 1  # the form, opened once
        assert (_told(slack, ASKER), _told(slack, "U0OTHER")) == (1, 1)
        marks = {(e.user, e.kind) for e in store.feedback_entries(wrong_only=False)}
        assert marks == {(ASKER, "wrong"), ("U0OTHER", "helpful")}  # not taken back
        (entry,) = store.feedback_entries(wrong_only=True)
        assert [r.text for r in entry.reasons] == ["step 3 is gone"]

    asyncio.run(main())


def _interactive(payload: dict[str, Any], envelope_id: str, attempt: int) -> dict[str, Any]:
    return {"envelope_id": envelope_id, "type": "interactive", "payload": payload,
            "accepts_response_payload": True, "retry_attempt": attempt,
            "retry_reason": "" if attempt == 0 else "timeout"}  # fmt: skip


def test_socket_mode_a_press_delivered_again_is_answered_once(
    indexed: tuple[Config, Answerer], backend: Backend, clock: FakeClock
) -> None:
    config, answerer = indexed
    store: AnswerStore = backend.open(clock)
    in_flight = InFlight()

    async def main() -> None:
        async with fake_slack() as slack:
            serving = run_serve(config, socket_settings(slack), answerer, store, port=0,
                                in_flight=in_flight)  # fmt: skip
            server = asyncio.create_task(serving)
            with_channels(slack)
            question = ask(slack, "how do I roll back a deploy?", GENERAL, QUESTION_TS)
            slack.push_socket(payloads.socket_mode_envelope(question, envelope_id="ask"))
            reply_ts = await stored_reply(slack, store)
            await in_flight.drain(10)
            wrong = _press(WRONG, reply_ts)
            slack.push_socket(_interactive(wrong, "p1", 0))
            await slack.wait_for("views.open", timeout=10)
            await in_flight.drain(10)
            slack.push_socket(_interactive(wrong, "p1", 1))  # unacknowledged, as Slack sees it
            await slack.wait_for_acks({"p1"}, timeout=10)
            await until(lambda: [a["envelope_id"] for a in slack.socket_acks].count("p1") == 2)
            await in_flight.drain(10)
            server.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await server
        assert len(slack.calls_to("views.open")) == 1
        assert _told(slack, ASKER) == 0  # the form was the word back; no "recorded" after it
        (entry,) = store.feedback_entries(wrong_only=True)  # not taken back by the repeat
        assert (entry.user, entry.source) == (ASKER, "button")

    asyncio.run(main())
