"""A streamed answer Slack completed just before its process was killed (chat.stopStream's
answer never came back): the run that takes the question over finds the message and answers
nothing again, and the answer, stored before the stop, is the message's: a reaction on it
counts. A killed replica and the one that resumes its question, on one store; both backends."""

from __future__ import annotations

import asyncio

from bot.app import Answerer
from bot.resume import Resumer
from bot.store import LEASE_SECONDS
from retrieval.config import Config
from tests.bot.e2e import ask
from tests.bot.harness import GENERAL, reaction
from tests.bot.store.conftest import Backend, FakeClock
from tests.bot.stream_replicas import stream_replicas
from tests.bot.test_e2e_streaming import HOW, QUESTION, WHEN

QUESTION_TS = "71.000100"


def test_stream_a_reaction_on_an_answer_streamed_just_before_a_crash_is_recorded(
    indexed: tuple[Config, Answerer], backend: Backend, clock: FakeClock
) -> None:
    config, _ = indexed
    store = backend.open(clock)
    resumer = Resumer()

    async def main() -> None:
        async with stream_replicas(config, store, resumer) as replicas:
            slack, killed, next_app = replicas.slack, replicas.killed, replicas.next_app
            gate = slack.hold("chat.stopStream", after=True)
            await killed.send(ask(slack, QUESTION, GENERAL, QUESTION_TS))
            (stop,) = await slack.wait_for("chat.stopStream", timeout=10)
            stream_ts = stop.params["ts"]
            clock.now += LEASE_SECONDS + 1  # the killed run's lease lapses
            assert await resumer.sweep() == 1
            await next_app.settle()
            assert len(slack.calls_to("chat.startStream")) == 1 and slack.posted() == []
            await next_app.send(reaction(True, "x", channel=GENERAL, item_ts=stream_ts,
                                         event_id="Ev71x"))  # fmt: skip
            await next_app.settle()
            (entry,) = store.feedback_entries(wrong_only=True)
            assert entry.record.reply_ts == stream_ts
            assert [c.text for c in entry.record.answer.claims] == [WHEN, HOW]
            gate.set()
            await killed.settle()
        assert len(store.feedback_entries(wrong_only=True)) == 1

    asyncio.run(main())
