"""A feedback button pressed on a reply in the moment between Slack posting it and its run marking
the staged answer posted (Slack's answer to the post not back yet), and the same on a reply a
run taking a question over wrote into its dead predecessor's cut-off stream: the press is not
"not one of my answers". The buttons' block names the question (bot/render/feedback.py), whose
staged answer is the message's: it is marked posted then, the mark counts once, the modal opens,
and the posting run finds the answer marked and stores nothing twice. Two replicas on one store;
both backends."""

from __future__ import annotations

import asyncio
from typing import Any

from bot.app import Answerer
from bot.render.feedback import FEEDBACK_ACTION
from bot.resume import Resumer
from bot.store import LEASE_SECONDS
from retrieval.config import Config
from tests.bot import payloads
from tests.bot.conftest import TEAM
from tests.bot.e2e import posted_ts, posted_unheard
from tests.bot.fake_slack import FakeSlack
from tests.bot.harness import ASKER, GENERAL, RunningApp, two_replicas
from tests.bot.store.conftest import Backend, FakeClock
from tests.bot.stream_replicas import stream_held, stream_replicas

QUESTION_TS = "78.000100"


def _press(blocks: list[dict[str, Any]], reply_ts: str, question_ts: str) -> dict[str, Any]:
    """👎 on the reply, as Slack sends it: with the block id of the block holding the buttons."""
    (buttons,) = [b for b in blocks if b.get("type") == "context_actions"]
    return payloads.block_actions(
        FEEDBACK_ACTION, "wrong", team=TEAM, channel=GENERAL, user=ASKER, message_ts=reply_ts,
        thread_ts=question_ts, block_id=buttons.get("block_id"),
    )  # fmt: skip


async def _pressed(slack: FakeSlack, app: RunningApp, press: dict[str, Any]) -> None:
    assert (await app.interact(press))[0] == 200
    (modal,) = await slack.wait_for("views.open")  # opened after the mark is stored
    assert slack.calls_to("chat.postEphemeral") == []  # no "not one of my answers"
    assert modal.params["view"]["type"] == "modal"


def test_app_a_button_pressed_before_the_reply_is_marked_posted_counts(
    indexed: tuple[Config, Answerer], backend: Backend, clock: FakeClock
) -> None:
    config, answerer = indexed
    store = backend.open(clock)

    async def main() -> None:
        async with two_replicas(config, answerer, store) as (slack, posting, other):
            gate, post = await posted_unheard(slack, posting, QUESTION_TS)
            reply_ts = posted_ts(post)
            assert store.find_answer(TEAM, GENERAL, reply_ts) is None  # not marked yet
            await _pressed(slack, other, _press(post.params["blocks"], reply_ts, QUESTION_TS))
            (entry,) = store.feedback_entries(wrong_only=True)
            assert (entry.source, entry.record.reply_ts) == ("button", reply_ts)
            gate.set()
            await posting.settle()
        assert store.posted_answer(TEAM, GENERAL, QUESTION_TS) == entry.record
        assert len(slack.posted()) == 1 and len(store.feedback_entries(wrong_only=True)) == 1

    asyncio.run(main())


def test_stream_a_button_pressed_on_a_cut_off_stream_being_finished_counts(
    indexed: tuple[Config, Answerer], backend: Backend, clock: FakeClock
) -> None:
    """A run killed mid-stream, before the answer was stored: the run taking over answers again,
    stages the answer and writes it (with the buttons) into the cut-off message with chat.update;
    a press before it marks that answer the message's counts."""
    config, _ = indexed
    store = backend.open(clock)
    resumer = Resumer()

    async def main() -> None:
        async with stream_replicas(config, store, resumer) as replicas:
            slack, killed, next_app = replicas.slack, replicas.killed, replicas.next_app
            gate, stream_ts = await stream_held(slack, killed, "79.000100")  # killed there
            slack.unhold("chat.appendStream")  # its call stays unanswered; later ones are not
            clock.now += LEASE_SECONDS + 1  # the killed run's lease lapses
            update_gate = slack.hold("chat.update", after=True)
            assert await resumer.sweep() == 1
            (update,) = await slack.wait_for("chat.update", timeout=10)
            assert update.params["ts"] == stream_ts
            assert store.find_answer(TEAM, GENERAL, stream_ts) is None  # not marked yet
            await _pressed(slack, killed, _press(update.params["blocks"], stream_ts,
                                                 "79.000100"))  # fmt: skip
            (entry,) = store.feedback_entries(wrong_only=True)
            assert entry.record.reply_ts == stream_ts
            update_gate.set()
            await next_app.settle(timeout=10)
            gate.set()  # the stuck run ends: it writes nothing more into the message
            await killed.settle()
        assert len(store.feedback_entries(wrong_only=True)) == 1

    asyncio.run(main())
