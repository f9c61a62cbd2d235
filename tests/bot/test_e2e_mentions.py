"""Mentions and messages answered end to end: one threaded reply with sources, once, however
often Slack delivers it; help for an empty mention; events that need no answer.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from bot.app import Answerer
from bot.store import SQLiteAnswerStore
from retrieval.config import Config
from tests.bot import payloads
from tests.bot.conftest import PAYMENTS_CHANNEL, TEAM
from tests.bot.e2e import (
    RecordingAnswerer,
    ask,
    posted_ts,
    reply_text,
    run,
    until,
)
from tests.bot.fake_slack import FakeSlack
from tests.bot.harness import (
    ASKER,
    DM,
    GENERAL,
    RunningApp,
    direct_message,
    fake_slack,
    reaction,
    running_app,
    with_channels,
)


def test_app_mention_gets_one_threaded_reply_with_sources(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    config, answerer = indexed

    async def scenario(slack: FakeSlack, app: RunningApp) -> None:
        slack.refuse("assistant.threads.setStatus", "not_allowed")  # :eyes: instead
        status, _ = await app.send(ask(slack, "how do I roll back a deploy?", GENERAL, "1.000100"))
        assert status == 200
        (post,) = await slack.wait_for("chat.postMessage")
        await slack.wait_for("reactions.remove")
        assert post.params["channel"] == GENERAL and post.params["thread_ts"] == "1.000100"
        assert post.params["unfurl_links"] is False and post.params["unfurl_media"] is False
        assert "Sources" in reply_text(post) and "deploy/rollback.md" in reply_text(post)
        assert "https://git.example.com/handbook/blob/main/deploy/rollback.md#L" in reply_text(post)
        eyes = [(c.method, c.params["timestamp"], c.params["name"])
                for c in slack.calls if c.method.startswith("reactions.")]  # fmt: skip
        assert eyes == [("reactions.add", "1.000100", "eyes"),
                        ("reactions.remove", "1.000100", "eyes")]  # fmt: skip
        record = store.find_answer(TEAM, GENERAL, posted_ts(post))
        assert record is not None and record.asker == ASKER
        assert record.answer.status == "answered"
        assert record.answer.sources[0].path == "deploy/rollback.md"

    run(config, answerer, store, scenario)


def test_app_redelivery_and_restart_do_not_double_the_reply(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore, tmp_path: Path
) -> None:
    config, answerer = indexed
    body = None

    async def main() -> None:
        nonlocal body
        async with fake_slack() as slack:
            body = ask(with_channels(slack), "how long does a deploy take?", GENERAL, "2.000100")
            async with running_app(slack, config, answerer, store) as app:
                assert (await app.send(body))[0] == 200
                assert (await app.send(body, retry=1))[0] == 200
                await slack.wait_for("chat.postMessage")
            # A restart on the same SQLite file: Slack's third try, and the same message under
            # another event id (as `message` and `app_mention` deliveries both carry it).
            reopened = SQLiteAnswerStore(store.path)
            try:
                async with running_app(slack, config, answerer, reopened) as app:
                    assert (await app.send(body, retry=2))[0] == 200
                    assert (await app.send({**body, "event_id": "EvOTHER"}))[0] == 200
                    await app.settle()
            finally:
                reopened.close()
            assert len(slack.calls_to("chat.postMessage")) == 1

    asyncio.run(main())


def test_app_empty_mention_gets_help_naming_readable_collections(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    config, answerer = indexed

    async def scenario(slack: FakeSlack, app: RunningApp) -> None:
        await app.send(ask(slack, "", GENERAL, "6.000100"))
        (post,) = await slack.wait_for("chat.postMessage")
        await app.send(ask(slack, "   ", PAYMENTS_CHANNEL, "6.000200"))
        posts = await slack.wait_for("chat.postMessage", 2)
        assert "*handbook*" in reply_text(post) and "payments" not in reply_text(post)
        assert "*handbook*, *payments*" in reply_text(posts[1])
        assert slack.calls_to("reactions.add") == []  # nothing to work on

    run(config, answerer, store, scenario)


def test_app_escapes_channel_pings_quoted_from_documents(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    config, answerer = indexed

    async def scenario(slack: FakeSlack, app: RunningApp) -> None:
        await app.send(ask(slack, "how do I announce a production deploy?", GENERAL, "7.000100"))
        (post,) = await slack.wait_for("chat.postMessage")
        assert "&lt;!channel&gt;" in reply_text(post)
        assert "<!channel>" not in reply_text(post)

    run(config, answerer, store, scenario)


def test_app_follow_up_in_thread_carries_earlier_questions(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    config, real = indexed
    recording = RecordingAnswerer(real)

    async def scenario(slack: FakeSlack, app: RunningApp) -> None:
        await app.send(ask(slack, "how do I roll back a deploy?", GENERAL, "9.000100"))
        await slack.wait_for("chat.postMessage")
        await app.send(ask(slack, "is that safe?", GENERAL, "9.000200", thread_ts="9.000100"))
        (_, follow_up) = await slack.wait_for("chat.postMessage", 2)
        assert follow_up.params["thread_ts"] == "9.000100"
        assert recording.calls[-1] == ("is that safe?", ("how do I roll back a deploy?",))

    run(config, recording, store, scenario)


def test_app_question_that_mentions_other_people_is_still_answered(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    config, answerer = indexed

    async def scenario(slack: FakeSlack, app: RunningApp) -> None:
        question = "<@U0BOB|bob> asked: how do I roll back a deploy? cc <@U0CAROL> <!here>"
        await app.send(ask(slack, question, GENERAL, "40.000100"))
        (post,) = await slack.wait_for("chat.postMessage")
        assert "deploy/rollback.md" in reply_text(post)
        # The answer is stored just after the post returns.
        await until(lambda: store.find_answer(TEAM, GENERAL, posted_ts(post)) is not None)
        record = store.find_answer(TEAM, GENERAL, posted_ts(post))
        assert record is not None
        assert record.question == "asked: how do I roll back a deploy? cc"

    run(config, answerer, store, scenario)


def test_app_acknowledges_events_it_does_not_act_on(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    config, answerer = indexed

    async def scenario(slack: FakeSlack, app: RunningApp) -> None:
        edited = direct_message("edited", channel=DM, ts="13.000100", event_id="EvEDIT")
        edited["event"]["subtype"] = "message_changed"
        from_bot = direct_message("beep", channel=DM, ts="13.000200", event_id="EvBOT")
        from_bot["event"]["bot_id"] = "B0OTHER"
        joined = payloads.event_callback(
            {"type": "member_joined_channel", "user": ASKER, "channel": GENERAL,
             "event_ts": "13.000250"},
            team=TEAM, event_id="EvJOIN", bot_user_id=slack.bot_user_id,
        )  # fmt: skip
        # On someone else's message: docbot does not even look at it (one of its own messages
        # the store does not know is read back: test_e2e_reaction_before_marked).
        on_other = reaction(True, "x", channel=GENERAL, item_ts="13.000300", event_id="EvNA",
                            item_user=ASKER)  # fmt: skip
        mine = reaction(True, "x", channel=GENERAL, item_ts="13.000300", event_id="EvMINE",
                        user=slack.bot_user_id)  # fmt: skip
        for body in (edited, from_bot, joined, on_other, mine):
            assert (await app.send(body))[0] == 200
        await app.settle()
        assert [c.method for c in slack.calls if c.method != "auth.test"] == []

    run(config, answerer, store, scenario)
