"""Feedback end to end: a wrong-answer reaction, the reason given in the thread, its removal,
and redeliveries of each.
"""

from __future__ import annotations

import asyncio
import io
import json

from bot.app import Answerer
from bot.feedback import feedback_command
from bot.render.live import WORKING
from bot.store import SQLiteAnswerStore
from retrieval.config import Config
from tests.bot.conftest import TEAM
from tests.bot.e2e import (
    RecordingAnswerer,
    as_channel_message,
    ask,
    reply_text,
    run,
    stored_reply,
    until,
)
from tests.bot.fake_slack import FakeSlack
from tests.bot.harness import (
    ASKER,
    GENERAL,
    RunningApp,
    fake_slack,
    reaction,
    running_app,
    with_channels,
)


def test_app_wrong_reaction_reason_and_removal_round_trip(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    config, answerer = indexed

    async def scenario(slack: FakeSlack, app: RunningApp) -> None:
        await app.send(ask(slack, "how do I roll back a deploy?", GENERAL, "8.000100"))
        reply_ts = await stored_reply(slack, store)
        x = reaction(True, "x", channel=GENERAL, item_ts=reply_ts, event_id="EvX1")
        await app.send(x)
        (thanks,) = await slack.wait_for("chat.postEphemeral")
        assert thanks.params["user"] == ASKER and thanks.params["thread_ts"] == "8.000100"
        await app.send(x, retry=1)  # the same event again changes nothing
        await app.send(reaction(True, "x", channel=GENERAL, item_ts=reply_ts, event_id="EvX2"))
        await app.send(reaction(True, "tada", channel=GENERAL, item_ts=reply_ts, event_id="EvT"))
        await app.settle()
        assert len(slack.calls_to("chat.postEphemeral")) == 1
        (entry,) = store.feedback_entries(wrong_only=False)
        assert (entry.kind, entry.emoji, entry.user) == ("wrong", "x", ASKER)

        reason = ask(slack, "it skips the migration step", GENERAL, "8.000300",
                     thread_ts="8.000100")  # fmt: skip
        await app.send(reason)
        ack = (await slack.wait_for("chat.postMessage", 2))[1]
        assert "saved that with the report" in reply_text(ack)
        assert [r.text for r in store.feedback_entries(True)[0].reasons] == [
            "it skips the migration step"
        ]
        await app.send(reaction(False, "x", channel=GENERAL, item_ts=reply_ts, event_id="EvX3"))
        await until(lambda: store.feedback_entries(wrong_only=False) == ())
        assert store.wrong_count(entry.answer_id) == 0

    run(config, answerer, store, scenario)


def test_app_reason_arriving_as_message_and_mention_is_saved_once(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    """With `message.channels` subscribed, one reply arrives as `message` and as `app_mention`."""
    config, answerer = indexed

    async def scenario(slack: FakeSlack, app: RunningApp) -> None:
        await app.send(ask(slack, "how do I roll back a deploy?", GENERAL, "15.000100"))
        reply_ts = await stored_reply(slack, store)
        await app.send(reaction(True, "-1", channel=GENERAL, item_ts=reply_ts, event_id="EvX15"))
        await slack.wait_for("chat.postEphemeral")
        as_mention = ask(slack, "the command is wrong", GENERAL, "15.000300", thread_ts="15.000100")
        await app.send(as_channel_message(as_mention, "EvMSG15"))
        await app.send(as_mention)
        acks = await slack.wait_for("chat.postMessage", 2)
        await app.settle()
        assert len(slack.calls_to("chat.postMessage")) == 2
        assert "saved that with the report" in reply_text(acks[1])
        (entry,) = store.feedback_entries(wrong_only=True)
        assert [r.text for r in entry.reasons] == ["the command is wrong"]

    run(config, answerer, store, scenario)


def test_app_reason_after_a_restart_is_saved_not_answered(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    """The invitation sent after a :x: is kept in the SQLite file, so a restart between the :x:
    and the reply still files the reply as the reason, not as a new question."""
    config, real = indexed
    recording = RecordingAnswerer(real)

    async def main() -> None:
        async with fake_slack() as slack:
            with_channels(slack)
            async with running_app(slack, config, recording, store) as app:
                await app.send(ask(slack, "how do I roll back a deploy?", GENERAL, "16.000100"))
                reply_ts = await stored_reply(slack, store)
                x = reaction(True, "x", channel=GENERAL, item_ts=reply_ts, event_id="EvX16")
                await app.send(x)
                await slack.wait_for("chat.postEphemeral")
            store.close()
            reopened = SQLiteAnswerStore(store.path)  # docbot restarted on the same file
            try:
                async with running_app(slack, config, recording, reopened) as app:
                    await app.send(ask(slack, "step 3 now needs --force", GENERAL, "16.000300",
                                       thread_ts="16.000100"))  # fmt: skip
                    (_, ack) = await slack.wait_for("chat.postMessage", 2)
                    await app.settle()
                report = io.StringIO()
                feedback_command(reopened, wrong_only=True, fmt="json", out=report)
                questions = reopened.thread_questions(TEAM, GENERAL, "16.000100")
            finally:
                reopened.close()
            assert "saved that with the report" in reply_text(ack)
            assert ack.params["thread_ts"] == "16.000100"
            assert len(slack.calls_to("chat.postMessage")) == 2  # the answer and the thanks
            # Progress was shown once, for the question; not for the reason: nothing to answer.
            assert slack.statuses().count(WORKING.text) == 1
            assert [q for q, _ in recording.calls] == ["how do I roll back a deploy?"]
            assert questions == ("how do I roll back a deploy?",)
            (entry,) = json.loads(report.getvalue())["entries"]
            assert (entry["user"], entry["emoji"]) == (ASKER, "x")
            assert [r["text"] for r in entry["reasons"]] == ["step 3 now needs --force"]

    asyncio.run(main())


def test_app_removed_wrong_mark_makes_the_next_reply_a_question(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    config, real = indexed
    recording = RecordingAnswerer(real)

    async def scenario(slack: FakeSlack, app: RunningApp) -> None:
        await app.send(ask(slack, "how do I roll back a deploy?", GENERAL, "17.000100"))
        reply_ts = await stored_reply(slack, store)
        await app.send(reaction(True, "x", channel=GENERAL, item_ts=reply_ts, event_id="EvX17"))
        await app.send(reaction(True, "x", channel=GENERAL, item_ts=reply_ts, event_id="EvY17",
                                user="U0OTHER"))  # fmt: skip
        await slack.wait_for("chat.postEphemeral", 2)
        await app.send(reaction(False, "x", channel=GENERAL, item_ts=reply_ts, event_id="EvR17"))
        # The asker retracted; the other person's mark stands but is not the asker's invitation.
        await until(lambda: len(store.feedback_entries(wrong_only=False)) == 1)
        # Delivered as `message` (left unclaimed: no reason is awaited) and as `app_mention`.
        as_mention = ask(slack, "how long does a production deploy take?", GENERAL, "17.000300",
                         thread_ts="17.000100")  # fmt: skip
        await app.send(as_channel_message(as_mention, "EvMSG17"))
        await app.send(as_mention)
        (_, answer) = await slack.wait_for("chat.postMessage", 2)
        await app.settle()
        assert len(slack.calls_to("chat.postMessage")) == 2
        assert "Sources" in reply_text(answer)
        assert "saved that with the report" not in reply_text(answer)
        assert recording.calls[-1][0] == "how long does a production deploy take?"
        assert store.thread_questions(TEAM, GENERAL, "17.000100")[-1] == recording.calls[-1][0]
        (entry,) = store.feedback_entries(wrong_only=False)
        assert entry.user == "U0OTHER" and entry.reasons == ()

    run(config, recording, store, scenario)


def test_app_redelivered_reaction_after_its_removal_changes_nothing(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    """Slack may redeliver reaction_added after the reaction_removed that followed it."""
    config, answerer = indexed

    async def scenario(slack: FakeSlack, app: RunningApp) -> None:
        await app.send(ask(slack, "how do I roll back a deploy?", GENERAL, "20.000100"))
        reply_ts = await stored_reply(slack, store)
        added = reaction(True, "x", channel=GENERAL, item_ts=reply_ts, event_id="EvX20")
        await app.send(added)
        await slack.wait_for("chat.postEphemeral")
        await app.send(reaction(False, "x", channel=GENERAL, item_ts=reply_ts, event_id="EvR20"))
        await until(lambda: store.feedback_entries(wrong_only=False) == ())
        await app.send(added, retry=1)
        await app.settle()
        assert store.feedback_entries(wrong_only=False) == ()
        assert len(slack.calls_to("chat.postEphemeral")) == 1

    run(config, answerer, store, scenario)
