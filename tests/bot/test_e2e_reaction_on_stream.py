"""A reaction on a streamed reply while it is still being written (after chat.startStream, before
its run stores the answer under that message): the message, read back, is docbot's stream (its
first block's marker) whose answer is not stored yet, so the mark is kept pending, and counts for
the answer the message ends up holding, exactly once: on the replica whose run streams it (as soon
as the run stores the answer), or on another replica (on its next sweep). The real pipeline and
openai client against the fake model server, streaming slowly; two replicas on one store; both
backends."""

from __future__ import annotations

import asyncio

import pytest

from bot.app import Answerer
from bot.resume import Resumer
from retrieval.config import Config
from tests.bot.conftest import TEAM
from tests.bot.e2e import ask
from tests.bot.harness import ASKER, GENERAL, reaction, two_replicas
from tests.bot.model_pipeline import model_pipeline
from tests.bot.store.conftest import Backend, FakeClock
from tests.bot.test_e2e_streaming import CLAIMS, HOW, QUESTION, WHEN
from tests.grounding.fake_openai import FakeOpenAI, answer, paced

QUESTION_TS = "75.000100"


@pytest.mark.parametrize("where", ["streaming-replica", "other-replica"])
def test_stream_a_reaction_while_the_answer_is_streamed_counts_once_for_it(
    indexed: tuple[Config, Answerer], backend: Backend, clock: FakeClock, where: str
) -> None:
    config, _ = indexed
    store = backend.open(clock)
    resumer = Resumer()

    async def main() -> None:
        async with FakeOpenAI() as server:
            server.always("responses", paced(0.2, answer(CLAIMS)))
            async with (
                model_pipeline(config, server) as pipeline,
                two_replicas(config, pipeline, store, resumer=resumer) as replicas,
            ):
                slack, streaming, other = replicas
                reacting = streaming if where == "streaming-replica" else other
                gate = slack.hold("chat.appendStream")  # the stream is still being written
                await streaming.send(ask(slack, QUESTION, GENERAL, QUESTION_TS))
                (append,) = await slack.wait_for("chat.appendStream", timeout=10)
                stream_ts = append.params["ts"]
                assert store.find_answer(TEAM, GENERAL, stream_ts) is None
                wrong = reaction(True, "x", channel=GENERAL, item_ts=stream_ts, event_id="Ev75x")
                await reacting.send(wrong)
                await reacting.send(wrong, retry=1)  # Slack's redelivery of the same event
                await slack.wait_for("conversations.replies", count=2)
                if reacting is other:
                    await other.settle()
                    assert store.feedback_entries(wrong_only=True) == ()  # pending, not lost
                gate.set()
                await streaming.settle(timeout=10)
                await resumer.sweep()  # the other replica retries what it keeps pending
                await other.settle()
                (entry,) = store.feedback_entries(wrong_only=True)
                assert entry.record.reply_ts == stream_ts
                assert [c.text for c in entry.record.answer.claims] == [WHEN, HOW]
                (thanks,) = slack.calls_to("chat.postEphemeral")
                assert thanks.params["user"] == ASKER
                await resumer.sweep()  # nothing is left to count again
                await other.settle()
                assert len(store.feedback_entries(wrong_only=True)) == 1

    asyncio.run(main())


def test_stream_a_reaction_added_and_removed_while_streamed_leaves_no_mark(
    indexed: tuple[Config, Answerer], backend: Backend, clock: FakeClock
) -> None:
    """Kept pending in the order Slack sent them: the mark, then its retraction."""
    config, _ = indexed
    store = backend.open(clock)
    resumer = Resumer()

    async def main() -> None:
        async with FakeOpenAI() as server:
            server.always("responses", paced(0.2, answer(CLAIMS)))
            async with (
                model_pipeline(config, server) as pipeline,
                two_replicas(config, pipeline, store, resumer=resumer) as replicas,
            ):
                slack, streaming, other = replicas
                gate = slack.hold("chat.appendStream")
                await streaming.send(ask(slack, QUESTION, GENERAL, "76.000100"))
                (append,) = await slack.wait_for("chat.appendStream", timeout=10)
                stream_ts = append.params["ts"]
                for added, event_id in ((True, "Ev76a"), (False, "Ev76r")):
                    await other.send(reaction(added, "white_check_mark", channel=GENERAL,
                                              item_ts=stream_ts, event_id=event_id))  # fmt: skip
                    await other.settle()
                gate.set()
                await streaming.settle(timeout=10)
                await resumer.sweep()
                await other.settle()
                assert store.find_answer(TEAM, GENERAL, stream_ts) is not None
                assert store.feedback_entries(wrong_only=False) == ()

    asyncio.run(main())
