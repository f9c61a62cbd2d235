"""A streamed answer cut off by a crash: its process died after chat.startStream and before
chat.stopStream, so the thread shows a half-written reply. The run that takes the question over
writes the whole answer into that same message (chat.update), with the reply metadata, and the
answer is stored as that message's: a reaction on it counts, and no second reply is posted.
Died during an append, no answer was stored and it is answered again; died just before the
stop, the answer it stored is the one written. A killed replica and the one that resumes its
question, on one store; both backends."""

from __future__ import annotations

import asyncio

from bot.app import Answerer
from bot.replies import REPLY_EVENT_TYPE
from bot.resume import Resumer
from bot.store import LEASE_SECONDS, AnswerStore
from retrieval.config import Config
from tests.bot.conftest import TEAM
from tests.bot.e2e import ask
from tests.bot.harness import GENERAL, reaction
from tests.bot.store.conftest import Backend, FakeClock
from tests.bot.stream_replicas import stream_replicas
from tests.bot.test_e2e_streaming import HOW, QUESTION, WHEN

QUESTION_TS = "72.000100"


def _cut_then_taken_over(
    config: Config, store: AnswerStore, clock: FakeClock, cut_at: str, asked: int
) -> None:
    """The killed run's `cut_at` call is never answered nor made: it stops there, its message
    unfinished. The next app takes the question over; `asked`: the model requests in all."""
    resumer = Resumer()

    async def main() -> None:
        async with stream_replicas(config, store, resumer) as replicas:
            server, slack = replicas.server, replicas.slack
            killed, next_app = replicas.killed, replicas.next_app
            gate = slack.hold(cut_at)
            await killed.send(ask(slack, QUESTION, GENERAL, QUESTION_TS))
            (start,) = await slack.wait_for("chat.startStream", timeout=10)
            await slack.wait_for(cut_at, timeout=10)
            slack.unhold(cut_at)  # the killed run's call stays unanswered; later ones are not
            stream_ts = start.response["ts"]
            clock.now += LEASE_SECONDS + 1  # the killed run's lease lapses
            assert await resumer.sweep() == 1
            await next_app.settle()
            assert len(slack.calls_to("chat.startStream")) == 1 and slack.posted() == []
            message = slack.message(GENERAL, stream_ts)
            assert message is not None
            assert message["metadata"]["event_type"] == REPLY_EVENT_TYPE
            assert message["streaming_state"] == "completed"
            shown = str(message["blocks"])
            assert WHEN in shown and HOW in shown and shown.count(WHEN) == 1
            record = store.find_answer(TEAM, GENERAL, stream_ts)
            assert record is not None and record.question_ts == QUESTION_TS
            assert [c.text for c in record.answer.claims] == [WHEN, HOW]
            await next_app.send(reaction(True, "x", channel=GENERAL, item_ts=stream_ts,
                                         event_id="Ev72x"))  # fmt: skip
            await next_app.settle()
            (entry,) = store.feedback_entries(wrong_only=True)
            assert entry.record.reply_ts == stream_ts
            gate.set()  # the stuck run ends: it writes nothing more into the message
            await killed.settle()
            assert slack.message(GENERAL, stream_ts) == message
            assert len(server.requests) == asked
        replies = [m for m in slack.messages[GENERAL] if m.get("thread_ts") == QUESTION_TS]
        assert [m["ts"] for m in replies] == [stream_ts]
        assert len(store.feedback_entries(wrong_only=True)) == 1

    asyncio.run(main())


def test_stream_cut_off_during_an_append_is_answered_again_into_the_same_message(
    indexed: tuple[Config, Answerer], backend: Backend, clock: FakeClock
) -> None:
    config, _ = indexed
    _cut_then_taken_over(config, backend.open(clock), clock, "chat.appendStream", asked=2)


def test_stream_cut_off_just_before_its_stop_is_finished_with_the_answer_it_stored(
    indexed: tuple[Config, Answerer], backend: Backend, clock: FakeClock
) -> None:
    config, _ = indexed
    _cut_then_taken_over(config, backend.open(clock), clock, "chat.stopStream", asked=1)
