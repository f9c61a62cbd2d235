"""A reaction on a streamed reply while it is still being written (after chat.startStream, before
its run stores the answer under that message): the message, read back, is docbot's stream (its
first block's marker) whose answer is not stored yet, so the mark is kept pending, and counts for
the answer the message ends up holding, exactly once: on the replica whose run streams it (as soon
as the run stores the answer), or on another replica (on its next sweep). The real pipeline and
openai client against the fake model server, streaming (the stream held at its first append);
two replicas on one store (tests/bot/stream_replicas.py); both backends."""

from __future__ import annotations

import asyncio

import pytest

from bot.app import Answerer
from bot.resume import Resumer
from retrieval.config import Config
from tests.bot.conftest import TEAM
from tests.bot.harness import ASKER, GENERAL, reaction
from tests.bot.store.conftest import Backend, FakeClock
from tests.bot.stream_replicas import stream_held, stream_replicas
from tests.bot.test_e2e_streaming import HOW, WHEN

QUESTION_TS = "75.000100"


@pytest.mark.parametrize("where", ["streaming-replica", "other-replica"])
def test_stream_a_reaction_while_the_answer_is_streamed_counts_once_for_it(
    indexed: tuple[Config, Answerer], backend: Backend, clock: FakeClock, where: str
) -> None:
    config, _ = indexed
    store = backend.open(clock)
    resumer = Resumer()

    async def main() -> None:
        async with stream_replicas(config, store, resumer) as replicas:
            slack, streaming, other = replicas.slack, replicas.killed, replicas.next_app
            reacting = streaming if where == "streaming-replica" else other
            gate, stream_ts = await stream_held(slack, streaming, QUESTION_TS)
            assert store.find_answer(TEAM, GENERAL, stream_ts) is None
            wrong = reaction(True, "x", channel=GENERAL, item_ts=stream_ts, event_id="Ev75x")
            await reacting.send(wrong)
            await reacting.send(wrong, retry=1)  # Slack's redelivery of the same event
            # The redelivery finds the event claimed before the first one's ack: Slack is read once.
            await slack.wait_for("conversations.replies", count=1)
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
        async with stream_replicas(config, store, resumer) as replicas:
            slack, streaming, other = replicas.slack, replicas.killed, replicas.next_app
            gate, stream_ts = await stream_held(slack, streaming, "76.000100")
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


def test_stream_a_reaction_removed_after_the_answer_is_stored_still_retracts_its_kept_mark(
    indexed: tuple[Config, Answerer], backend: Backend, clock: FakeClock
) -> None:
    """The removal comes once the answer is stored, before the sweep counts the kept mark: it
    waits behind that mark (in the order Slack sent them) instead of retracting nothing now
    and leaving the mark to be counted after it."""
    config, _ = indexed
    store = backend.open(clock)
    resumer = Resumer()

    async def main() -> None:
        async with stream_replicas(config, store, resumer) as replicas:
            slack, streaming, other = replicas.slack, replicas.killed, replicas.next_app
            gate, stream_ts = await stream_held(slack, streaming, "79.000100")
            await other.send(reaction(True, "white_check_mark", channel=GENERAL,
                                      item_ts=stream_ts, event_id="Ev79a"))  # fmt: skip
            await other.settle()
            gate.set()
            await streaming.settle(timeout=10)
            assert store.find_answer(TEAM, GENERAL, stream_ts) is not None
            await other.send(reaction(False, "white_check_mark", channel=GENERAL,
                                      item_ts=stream_ts, event_id="Ev79r"))  # fmt: skip
            await other.settle()
            await resumer.sweep()
            await other.settle()
            assert store.feedback_entries(wrong_only=False) == ()

    asyncio.run(main())
