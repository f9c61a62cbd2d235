"""The real Bolt app end to end: signed HTTP requests in, the fake Slack's recorded calls out.

The answerer is the real pipeline (index over tests/bot/corpus + the extractive generator);
the work happens after the ack, so tests poll the fake's records with a short bounded wait.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import io
import json
import logging
import socket
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn, cast

import aiohttp
import pytest
from pydantic import SecretStr

from bot.app import Answerer
from bot.feedback import feedback_command
from bot.runtime import make_pipeline
from bot.serve import run_serve
from bot.settings import SettingsError
from bot.store import AnswerStore, SQLiteAnswerStore, StoreError
from grounding.answer import Answer
from grounding.generators.openai_gen import OpenAIGenerator, make_openai_client
from retrieval.config import Config
from retrieval.index import Index
from retrieval.scopes import Scope
from tests.bot import payloads
from tests.bot.conftest import CANARY, PAYMENTS_CHANNEL, TEAM
from tests.bot.fake_slack import Call, FakeSlack
from tests.bot.harness import (
    ASKER,
    CONNECT,
    DM,
    GENERAL,
    RunningApp,
    direct_message,
    fake_slack,
    mention,
    post_event,
    reaction,
    running_app,
    settings_for,
    with_channels,
)
from tests.grounding.fake_openai import FakeOpenAI, http_error

# Long enough for a duplicate delivery to have been (not) answered.
SETTLE_SECONDS = 0.4


Scenario = Callable[[FakeSlack, RunningApp], Awaitable[None]]


def run(config: Config, answerer: Answerer, store: AnswerStore, scenario: Scenario) -> None:
    async def main() -> None:
        async with (
            fake_slack() as slack,
            running_app(with_channels(slack), config, answerer, store) as app,
        ):
            await scenario(slack, app)

    asyncio.run(main())


def reply_text(call: Call) -> str:
    return f"{call.params.get('text', '')}\n{json.dumps(call.params.get('blocks', []))}"


def ask(
    slack: FakeSlack, text: str, channel: str, ts: str, *, thread_ts: str | None = None,
    team: str = TEAM, ext_shared: bool = False,
) -> dict[str, Any]:  # fmt: skip
    """A mention of docbot asking `text`, with an event id derived from `ts`."""
    event_id = f"Ev{ts.replace('.', '')}"
    return mention(text, channel=channel, ts=ts, event_id=event_id, bot_user_id=slack.bot_user_id,
                   thread_ts=thread_ts, team=team, ext_shared=ext_shared)  # fmt: skip


def test_app_mention_gets_one_threaded_reply_with_sources(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    config, answerer = indexed

    async def scenario(slack: FakeSlack, app: RunningApp) -> None:
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
        record = store.find_answer(TEAM, GENERAL, _reply_ts(post))
        assert record is not None and record.asker == ASKER
        assert record.answer["status"] == "answered"
        assert record.answer["sources"][0]["path"] == "deploy/rollback.md"

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
                    await asyncio.sleep(SETTLE_SECONDS)
            finally:
                reopened.close()
            assert len(slack.calls_to("chat.postMessage")) == 1

    asyncio.run(main())


def test_app_rejects_bad_signature_and_stale_timestamp(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    config, answerer = indexed

    async def scenario(slack: FakeSlack, app: RunningApp) -> None:
        body = ask(slack, "how do I roll back?", GENERAL, "3.000100")
        assert (await app.send(body, secret="not-the-secret"))[0] == 401
        assert (await app.send(body, timestamp=int(time.time()) - 6 * 60))[0] == 401
        await asyncio.sleep(SETTLE_SECONDS)
        assert slack.calls == []
        assert store.claim_event("Ev3000100")  # rejected requests never reached the listeners

    run(config, answerer, store, scenario)


def test_app_answers_url_verification_with_the_challenge(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    config, answerer = indexed
    challenge = payloads.url_verification("3eZbrw1aBm2rZgRNFdxV2595E9CY3gmd")

    async def scenario(slack: FakeSlack, app: RunningApp) -> None:
        status, text = await app.send(challenge)
        assert status == 200 and challenge["challenge"] in text

    run(config, answerer, store, scenario)


def test_app_private_canary_reaches_only_its_channel(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    config, answerer = indexed
    question = "what is the secret phrase for the payments vault?"

    async def scenario(slack: FakeSlack, app: RunningApp) -> None:
        await app.send(ask(slack, question, PAYMENTS_CHANNEL, "4.000100"))
        await app.send(ask(slack, question, GENERAL, "4.000200"))
        await app.send(ask(slack, question, CONNECT, "4.000300"))
        await app.send(ask(slack, question, PAYMENTS_CHANNEL, "4.000400", ext_shared=True))
        await app.send(direct_message(question, channel=DM, ts="4.000500", event_id="EvDM4"))
        posts = await slack.wait_for("chat.postMessage", 5)
        by_channel = {(c.params["channel"], c.params["thread_ts"]): reply_text(c) for c in posts}
        assert CANARY in by_channel[(PAYMENTS_CHANNEL, "4.000100")]  # the positive control
        assert CANARY not in by_channel[(PAYMENTS_CHANNEL, "4.000400")]
        for call in slack.calls:
            if call.params.get("channel") != PAYMENTS_CHANNEL:
                assert CANARY not in call.body, call.method
        assert "may read no collections" in by_channel[(CONNECT, "4.000300")]

    run(config, answerer, store, scenario)


def test_app_ignores_unconfigured_teams(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    config, answerer = indexed

    async def scenario(slack: FakeSlack, app: RunningApp) -> None:
        body = ask(slack, "how do I roll back?", GENERAL, "5.000100", team="T0ELSEWHERE")
        assert (await app.send(body))[0] == 200
        await asyncio.sleep(SETTLE_SECONDS)
        assert [c.method for c in slack.calls if c.method != "auth.test"] == []

    run(config, answerer, store, scenario)


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


def test_app_wrong_reaction_reason_and_removal_round_trip(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    config, answerer = indexed

    async def scenario(slack: FakeSlack, app: RunningApp) -> None:
        await app.send(ask(slack, "how do I roll back a deploy?", GENERAL, "8.000100"))
        reply_ts = await _stored_reply(slack, store)
        x = reaction(True, "x", channel=GENERAL, item_ts=reply_ts, event_id="EvX1")
        await app.send(x)
        (thanks,) = await slack.wait_for("chat.postEphemeral")
        assert thanks.params["user"] == ASKER and thanks.params["thread_ts"] == "8.000100"
        await app.send(x, retry=1)  # the same event again changes nothing
        await app.send(reaction(True, "x", channel=GENERAL, item_ts=reply_ts, event_id="EvX2"))
        await app.send(reaction(True, "tada", channel=GENERAL, item_ts=reply_ts, event_id="EvT"))
        await asyncio.sleep(SETTLE_SECONDS)
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
        await _until(lambda: store.feedback_entries(wrong_only=False) == ())
        assert store.wrong_count(entry.answer_id) == 0

    run(config, answerer, store, scenario)


def test_app_reason_arriving_as_message_and_mention_is_saved_once(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    """With `message.channels` subscribed, one reply arrives as `message` and as `app_mention`."""
    config, answerer = indexed

    async def scenario(slack: FakeSlack, app: RunningApp) -> None:
        await app.send(ask(slack, "how do I roll back a deploy?", GENERAL, "15.000100"))
        reply_ts = await _stored_reply(slack, store)
        await app.send(reaction(True, "-1", channel=GENERAL, item_ts=reply_ts, event_id="EvX15"))
        await slack.wait_for("chat.postEphemeral")
        as_mention = ask(slack, "the command is wrong", GENERAL, "15.000300", thread_ts="15.000100")
        as_message = copy.deepcopy(as_mention)
        as_message["event_id"] = "EvMSG15"
        as_message["event"].update(type="message", channel_type="channel")
        await app.send(as_message)
        await app.send(as_mention)
        acks = await slack.wait_for("chat.postMessage", 2)
        await asyncio.sleep(SETTLE_SECONDS)
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
                reply_ts = await _stored_reply(slack, store)
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
                    await asyncio.sleep(SETTLE_SECONDS)
                report = io.StringIO()
                feedback_command(reopened, wrong_only=True, fmt="json", out=report)
                questions = reopened.thread_questions(TEAM, GENERAL, "16.000100")
            finally:
                reopened.close()
            assert "saved that with the report" in reply_text(ack)
            assert ack.params["thread_ts"] == "16.000100"
            assert len(slack.calls_to("chat.postMessage")) == 2  # the answer and the thanks
            assert [c.params["timestamp"] for c in slack.calls_to("reactions.add")] == [
                "16.000100"
            ]  # no :eyes: on the reason: nothing was answered
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
        reply_ts = await _stored_reply(slack, store)
        await app.send(reaction(True, "x", channel=GENERAL, item_ts=reply_ts, event_id="EvX17"))
        await app.send(reaction(True, "x", channel=GENERAL, item_ts=reply_ts, event_id="EvY17",
                                user="U0OTHER"))  # fmt: skip
        await slack.wait_for("chat.postEphemeral", 2)
        await app.send(reaction(False, "x", channel=GENERAL, item_ts=reply_ts, event_id="EvR17"))
        # The asker retracted; the other person's mark stands but is not the asker's invitation.
        await _until(lambda: len(store.feedback_entries(wrong_only=False)) == 1)
        # Delivered as `message` (left unclaimed: no reason is awaited) and as `app_mention`.
        as_mention = ask(slack, "how long does a deploy take?", GENERAL, "17.000300",
                         thread_ts="17.000100")  # fmt: skip
        as_message = copy.deepcopy(as_mention)
        as_message["event_id"] = "EvMSG17"
        as_message["event"].update(type="message", channel_type="channel")
        await app.send(as_message)
        await app.send(as_mention)
        (_, answer) = await slack.wait_for("chat.postMessage", 2)
        await slack.wait_for("reactions.remove", 2)
        await asyncio.sleep(SETTLE_SECONDS)
        assert len(slack.calls_to("chat.postMessage")) == 2
        assert "Sources" in reply_text(answer)
        assert "saved that with the report" not in reply_text(answer)
        assert recording.calls[-1][0] == "how long does a deploy take?"
        assert store.thread_questions(TEAM, GENERAL, "17.000100")[-1] == recording.calls[-1][0]
        (entry,) = store.feedback_entries(wrong_only=False)
        assert entry.user == "U0OTHER" and entry.reasons == ()

    run(config, recording, store, scenario)


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


def test_app_rate_limited_post_is_retried_and_lands(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    config, answerer = indexed

    async def scenario(slack: FakeSlack, app: RunningApp) -> None:
        slack.fail_next("chat.postMessage", 429, retry_after=1)
        await app.send(ask(slack, "how do I roll back a deploy?", GENERAL, "10.000100"))
        first, second = await slack.wait_for("chat.postMessage", 2)
        assert first.params == second.params
        assert first.status == 429 and second.response.get("ok")
        assert second.at - first.at >= 1.0  # Slack's Retry-After was honoured
        await slack.wait_for("reactions.remove")
        assert store.thread_questions(TEAM, GENERAL, "10.000100") == (
            "how do I roll back a deploy?",
        )

    run(config, answerer, store, scenario)


def test_app_eyes_never_hold_up_the_answer(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    """:eyes: is cosmetic: a slow reactions.add must not delay the reply, and the removal still
    comes once the add has been answered (else the :eyes: would stay)."""
    config, answerer = indexed

    async def scenario(slack: FakeSlack, app: RunningApp) -> None:
        gate = slack.hold("reactions.add")
        await app.send(ask(slack, "how do I roll back a deploy?", GENERAL, "18.000100"))
        (post,) = await slack.wait_for("chat.postMessage")
        assert "Sources" in reply_text(post)
        assert slack.calls_to("reactions.remove") == []  # the add is still unanswered
        released = time.monotonic()
        gate.set()
        (remove,) = await slack.wait_for("reactions.remove")
        assert remove.at >= released and remove.params["name"] == "eyes"

    run(config, answerer, store, scenario)


def test_app_rate_limited_eyes_are_dropped_not_waited_for(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    """A 429 on reactions.add would otherwise stall the answer for Retry-After (minutes)."""
    config, answerer = indexed

    async def scenario(slack: FakeSlack, app: RunningApp) -> None:
        slack.fail_next("reactions.add", 429, retry_after=30)
        await app.send(ask(slack, "how do I roll back a deploy?", GENERAL, "19.000100"))
        (post,) = await slack.wait_for("chat.postMessage")
        assert "Sources" in reply_text(post)
        await asyncio.sleep(SETTLE_SECONDS)
        assert len(slack.calls_to("reactions.add")) == 1  # not retried
        assert slack.calls_to("reactions.remove") == []  # nothing was added, nothing to remove

    run(config, answerer, store, scenario)


def test_app_redelivered_reaction_after_its_removal_changes_nothing(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    """Slack may redeliver reaction_added after the reaction_removed that followed it."""
    config, answerer = indexed

    async def scenario(slack: FakeSlack, app: RunningApp) -> None:
        await app.send(ask(slack, "how do I roll back a deploy?", GENERAL, "20.000100"))
        reply_ts = await _stored_reply(slack, store)
        added = reaction(True, "x", channel=GENERAL, item_ts=reply_ts, event_id="EvX20")
        await app.send(added)
        await slack.wait_for("chat.postEphemeral")
        await app.send(reaction(False, "x", channel=GENERAL, item_ts=reply_ts, event_id="EvR20"))
        await _until(lambda: store.feedback_entries(wrong_only=False) == ())
        await app.send(added, retry=1)
        await asyncio.sleep(SETTLE_SECONDS)
        assert store.feedback_entries(wrong_only=False) == ()
        assert len(slack.calls_to("chat.postEphemeral")) == 1

    run(config, answerer, store, scenario)


class FailingStore:
    """The real store, except that the named methods fail as a locked or full database does."""

    def __init__(self, inner: SQLiteAnswerStore, *failing: str) -> None:
        self.inner = inner
        self.failing = set(failing)

    def __getattr__(self, name: str) -> Any:
        if name in self.failing:

            def fail(*args: object) -> NoReturn:
                raise StoreError(f"cannot write {self.inner.path}: database is locked")

            return fail
        return getattr(self.inner, name)


def test_app_store_failure_on_a_question_is_told_to_the_asker(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore, caplog: pytest.LogCaptureFixture
) -> None:
    config, answerer = indexed
    broken = cast(AnswerStore, FailingStore(store, "claim_event"))

    async def scenario(slack: FakeSlack, app: RunningApp) -> None:
        await app.send(ask(slack, "how do I roll back a deploy?", GENERAL, "21.000100"))
        (post,) = await slack.wait_for("chat.postMessage")
        assert "something went wrong on my side" in reply_text(post)
        assert post.params["thread_ts"] == "21.000100"

    with caplog.at_level(logging.ERROR):
        run(config, answerer, broken, scenario)
    assert any("Ev21000100" in r.getMessage() for r in _errors(caplog, "docbot.slack"))
    assert _errors(caplog, "docbot.slack.bolt") == []  # nothing escaped to Bolt


def test_app_store_failure_on_a_reaction_is_logged_not_raised(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore, caplog: pytest.LogCaptureFixture
) -> None:
    config, answerer = indexed
    broken = cast(AnswerStore, FailingStore(store, "find_answer", "pending_reason"))

    async def scenario(slack: FakeSlack, app: RunningApp) -> None:
        await app.send(reaction(True, "x", channel=GENERAL, item_ts="22.000200", event_id="EvX22"))
        reason = ask(slack, "it is wrong", GENERAL, "22.000300", thread_ts="22.000100")
        as_message = copy.deepcopy(reason)
        as_message["event_id"] = "EvMSG22"
        as_message["event"].update(type="message", channel_type="channel")
        await app.send(as_message)
        await _until(lambda: len(_errors(caplog, "docbot.slack")) >= 2)
        await asyncio.sleep(SETTLE_SECONDS)

    with caplog.at_level(logging.ERROR):
        run(config, answerer, broken, scenario)
    logged = " ".join(r.getMessage() for r in _errors(caplog, "docbot.slack"))
    assert "EvX22" in logged and "EvMSG22" in logged
    assert _errors(caplog, "docbot.slack.bolt") == []


def _errors(caplog: pytest.LogCaptureFixture, logger: str) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == logger and r.levelno >= logging.ERROR]


def test_app_failed_post_is_logged_and_the_answer_kept(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    config, answerer = indexed

    async def scenario(slack: FakeSlack, app: RunningApp) -> None:
        slack.fail_next("chat.postMessage", 500, count=6)  # 1 try + 2 retries, for 2 replies
        await app.send(ask(slack, "how do I roll back a deploy?", GENERAL, "11.000100"))
        await app.send(ask(slack, "how long does a deploy take?", GENERAL, "11.000200"))
        await slack.wait_for("reactions.remove", 2, timeout=10)
        assert slack.posted() == []
        for ts in ("11.000100", "11.000200"):
            record = store.find_answer(TEAM, GENERAL, f"unposted:{ts}")
            assert record is not None and record.question_ts == ts
            assert record.answer["status"] == "answered"

    run(config, answerer, store, scenario)


def test_app_openai_failure_gets_an_error_reply(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    """The real OpenAIGenerator against the fake OpenAI server answering 500."""
    config, _ = indexed
    index = Index.load(config)

    async def main() -> None:
        async with FakeOpenAI() as openai_server:
            openai_server.always("responses", http_error(500))
            client = make_openai_client("sk-test", openai_server.base_url, 5.0, 0)
            pipeline = make_pipeline(config, index, OpenAIGenerator(client, "gpt-test"))
            async with (
                fake_slack() as slack,
                running_app(with_channels(slack), config, pipeline, store) as app,
            ):
                await app.send(ask(slack, "how do I roll back a deploy?", GENERAL, "14.000100"))
                (post,) = await slack.wait_for("chat.postMessage", timeout=10)
                await slack.wait_for("reactions.remove")
            assert openai_server.bodies("responses")  # the model was really asked
        assert ":warning:" in reply_text(post)
        (record,) = [store.find_answer(TEAM, GENERAL, _reply_ts(post))]
        assert record is not None and record.answer["status"] == "error"

    asyncio.run(main())


def test_app_openai_auth_failure_reply_carries_no_key_or_admin_advice(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    """A 401 body quoting part of the API key stays in the log and the store, out of Slack."""
    config, _ = indexed
    index = Index.load(config)
    body = "Incorrect API key provided: sk-proj-AbCdEf****************wxyz. Check OPENAI_API_KEY."

    async def main() -> None:
        async with FakeOpenAI() as openai_server:
            openai_server.always("responses", http_error(401, body, code="invalid_api_key"))
            client = make_openai_client("sk-proj-AbCdEf0123456789wxyz", openai_server.base_url,
                                        5.0, 0)  # fmt: skip
            pipeline = make_pipeline(config, index, OpenAIGenerator(client, "gpt-test"))
            async with (
                fake_slack() as slack,
                running_app(with_channels(slack), config, pipeline, store) as app,
            ):
                await app.send(ask(slack, "how do I roll back a deploy?", GENERAL, "24.000100"))
                (post,) = await slack.wait_for("chat.postMessage", timeout=10)
                sent = slack.all_text()
        for leak in ("sk-", "AbCdEf", "wxyz", "OPENAI_API_KEY", "401"):
            assert leak not in sent and leak not in reply_text(post), leak
        assert ":warning:" in reply_text(post) and "try again" in reply_text(post).lower()
        record = store.find_answer(TEAM, GENERAL, _reply_ts(post))
        assert record is not None and record.answer["status"] == "error"
        assert "401" in record.answer["error_detail"]  # the admins keep the detail

    asyncio.run(main())


@pytest.mark.parametrize(("status", "retry_after"), [(500, None), (429, 0)])
def test_app_unverifiable_channel_says_so_and_fails_closed(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore, status: int,
    retry_after: int | None,
) -> None:  # fmt: skip
    """conversations.info keeps failing (after the client's retries): a channel with private
    grants answers nothing, says the lookup failed (not "ask an admin"), and leaks nothing."""
    config, answerer = indexed
    tries = 3  # the first call and the client's two retries

    async def scenario(slack: FakeSlack, app: RunningApp) -> None:
        slack.fail_next("conversations.info", status, tries, retry_after)
        question = "what is the secret phrase for the payments vault?"
        await app.send(ask(slack, question, PAYMENTS_CHANNEL, "25.000100"))
        (refused,) = await slack.wait_for("chat.postMessage", timeout=10)
        slack.fail_next("conversations.info", status, tries, retry_after)
        await app.send(ask(slack, "", PAYMENTS_CHANNEL, "25.000200"))
        (_, help_reply) = await slack.wait_for("chat.postMessage", 2, timeout=10)
        slack.fail_next("conversations.info", status, tries, retry_after)
        await app.send(ask(slack, "how do I roll back a deploy?", GENERAL, "25.000300"))
        (*_, public) = await slack.wait_for("chat.postMessage", 3, timeout=10)
        for reply in (refused, help_reply):
            assert "could not verify this channel" in reply_text(reply)
            assert "admin" not in reply_text(reply)
        assert CANARY not in slack.all_text()
        assert "deploy/rollback.md" in reply_text(public)  # public collections still answer
        assert "searched public collections only" in reply_text(public)  # and it says so
        assert len(slack.calls_to("conversations.info")) == 3 * tries

    run(config, answerer, store, scenario)


def test_app_answerer_failure_and_long_question_get_replies_not_silence(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    config, _ = indexed

    async def scenario(slack: FakeSlack, app: RunningApp) -> None:
        await app.send(ask(slack, "how do I roll back?", GENERAL, "12.000100"))
        await app.send(ask(slack, "why? " * 900, GENERAL, "12.000200"))
        posts = await slack.wait_for("chat.postMessage", 2)
        by_thread = {c.params["thread_ts"]: reply_text(c) for c in posts}
        assert "something went wrong on my side" in by_thread["12.000100"]
        too_long = by_thread["12.000200"]
        assert "4,499 characters long" in too_long and "up to 4,000" in too_long
        # Nothing failed: the asker is told what to change, not to retry or call an admin.
        assert "try again" not in too_long.lower() and "admin" not in too_long
        await slack.wait_for("reactions.remove", 2)

    run(config, ExplodingAnswerer(), store, scenario)


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
        on_other = reaction(True, "x", channel=GENERAL, item_ts="13.000300", event_id="EvNA")
        mine = reaction(True, "x", channel=GENERAL, item_ts="13.000300", event_id="EvMINE",
                        user=slack.bot_user_id)  # fmt: skip
        for body in (edited, from_bot, joined, on_other, mine):
            assert (await app.send(body))[0] == 200
        await asyncio.sleep(SETTLE_SECONDS)
        assert [c.method for c in slack.calls if c.method != "auth.test"] == []

    run(config, answerer, store, scenario)


def test_serve_socket_mode_answers_an_envelope_once(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    config, answerer = indexed

    async def main() -> None:
        async with fake_slack() as slack:
            payload = mention("how do I roll back a deploy?", channel=GENERAL,
                              ts="1610241741.000200", event_id="EvSOCKET",
                              bot_user_id=slack.bot_user_id)  # fmt: skip
            envelope = payloads.socket_mode_envelope(payload, envelope_id="first")
            settings = settings_for(slack).model_copy(
                update={"slack_app_token": SecretStr(slack.app_token), "slack_signing_secret": None}
            )
            server = asyncio.create_task(run_serve(config, settings, answerer, store, port=0))
            with_channels(slack)
            slack.push_socket(envelope)
            # Socket Mode redelivers with retry_attempt 1: the store, not the counter, decides.
            slack.push_socket(
                payloads.socket_mode_envelope(payload, envelope_id="second", retry_attempt=1)
            )
            (post,) = await slack.wait_for("chat.postMessage", timeout=10)
            await _until(lambda: len(slack.socket_acks) == 2)
            await asyncio.sleep(SETTLE_SECONDS)
            server.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await server
            assert post.params["thread_ts"] == "1610241741.000200"
            assert "deploy/rollback.md" in reply_text(post)
            assert len(slack.calls_to("chat.postMessage")) == 1
            assert {a["envelope_id"] for a in slack.socket_acks} == {"first", "second"}

    asyncio.run(main())


def test_serve_http_mode_listens_on_slack_events_until_cancelled(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    config, answerer = indexed
    challenge = payloads.url_verification("Jhj5dZrVaK7ZwHHjRyZWjbDl3eZbrw1a")
    with socket.socket() as probe:  # a free port: run_serve takes a number, not a socket
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]

    async def main() -> None:
        async with fake_slack() as slack:
            server = asyncio.create_task(
                run_serve(config, settings_for(slack), answerer, store, port=port, host="127.0.0.1")
            )
            await slack.wait_for("auth.test")  # the start-up token check
            url = f"http://127.0.0.1:{port}/slack/events"
            async with aiohttp.ClientSession() as session:
                await _until(lambda: _listening(port))
                status, text = await post_event(session, url, challenge)
                async with session.get(f"http://127.0.0.1:{port}/healthz") as health:
                    assert health.status == 200
            server.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await server
            assert status == 200 and challenge["challenge"] in text
            assert not _listening(port)

    asyncio.run(main())


def test_serve_shutdown_lets_an_answer_in_progress_post_its_reply(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    """Cancelled mid-answer (Ctrl-C), run_serve returns only after the reply was posted."""
    config, real = indexed
    slow = SlowAnswerer(real, seconds=0.5)
    port = _free_port()

    async def main() -> None:
        async with fake_slack() as slack:
            server = asyncio.create_task(run_serve(
                config, settings_for(with_channels(slack)), slow, store, port=port,
                host="127.0.0.1",
            ))  # fmt: skip
            await _until(lambda: _listening(port))
            async with aiohttp.ClientSession() as session:
                url = f"http://127.0.0.1:{port}/slack/events"
                await post_event(session, url, ask(slack, "how do I roll back?", GENERAL, "23.1"))
            await asyncio.wait_for(slow.started.wait(), 5)
            server.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await server
            assert [c.params["thread_ts"] for c in slack.posted()] == ["23.1"]

    asyncio.run(main())


def _free_port() -> int:
    with socket.socket() as probe:  # run_serve takes a port number, not a socket
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _listening(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) == 0


def test_serve_refuses_to_start_with_bad_credentials(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    config, answerer = indexed

    async def main() -> None:
        async with fake_slack() as slack:
            good = settings_for(slack)
            with pytest.raises(SettingsError, match="SLACK_SIGNING_SECRET is not set"):
                await run_serve(config, good.model_copy(update={"slack_signing_secret": None}),
                                answerer, store, port=0)  # fmt: skip
            wrong = good.model_copy(update={"slack_bot_token": SecretStr("xoxb-revoked")})
            with pytest.raises(
                SettingsError, match=r"Slack rejected SLACK_BOT_TOKEN \(invalid_auth"
            ):
                await run_serve(config, wrong, answerer, store, port=0)
            socket = good.model_copy(update={"slack_app_token": SecretStr("xapp-revoked")})
            with pytest.raises(SettingsError, match=r"Slack rejected SLACK_APP_TOKEN"):
                await run_serve(config, socket, answerer, store, port=0)

    asyncio.run(main())


class RecordingAnswerer:
    """Passes through to the real pipeline and records (question, context) of every call."""

    def __init__(self, inner: Answerer) -> None:
        self.inner = inner
        self.calls: list[tuple[str, tuple[str, ...]]] = []

    async def answer(
        self, question: str, scope: Scope, *, context: Sequence[str] = (),
        user_id: str | None = None,
    ) -> Answer:  # fmt: skip
        self.calls.append((question, tuple(context)))
        return await self.inner.answer(question, scope, context=context, user_id=user_id)


class SlowAnswerer:
    """The real pipeline, after `seconds` of thinking; `started` is set when a question comes."""

    def __init__(self, inner: Answerer, seconds: float) -> None:
        self.inner = inner
        self.seconds = seconds
        self.started = asyncio.Event()

    async def answer(
        self, question: str, scope: Scope, *, context: Sequence[str] = (),
        user_id: str | None = None,
    ) -> Answer:  # fmt: skip
        self.started.set()
        await asyncio.sleep(self.seconds)
        return await self.inner.answer(question, scope, context=context, user_id=user_id)


class ExplodingAnswerer:
    async def answer(
        self, question: str, scope: Scope, *, context: Sequence[str] = (),
        user_id: str | None = None,
    ) -> Answer:  # fmt: skip
        raise RuntimeError("the index file vanished")


async def _stored_reply(slack: FakeSlack, store: AnswerStore) -> str:
    """The ts of docbot's first reply, once its answer is stored: the answer is saved just after
    the post returns, and a reaction sent before that would find no answer (no person is that
    quick, a test is)."""
    reply_ts = _reply_ts((await slack.wait_for("chat.postMessage"))[0])
    await _until(lambda: store.find_answer(TEAM, GENERAL, reply_ts) is not None)
    return reply_ts


def _reply_ts(post: Call) -> str:
    ts = post.response.get("ts")
    assert isinstance(ts, str), post.response
    return ts


async def _until(condition: Callable[[], bool], timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "condition not met in time"
        await asyncio.sleep(0.02)


def test_app_question_that_mentions_other_people_is_still_answered(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    config, answerer = indexed

    async def scenario(slack: FakeSlack, app: RunningApp) -> None:
        question = "<@U0BOB|bob> asked: how do I roll back a deploy? cc <@U0CAROL> <!here>"
        await app.send(ask(slack, question, GENERAL, "40.000100"))
        (post,) = await slack.wait_for("chat.postMessage")
        assert "deploy/rollback.md" in reply_text(post)
        record = store.find_answer(TEAM, GENERAL, _reply_ts(post))
        assert record is not None
        assert record.question == "asked: how do I roll back a deploy? cc"

    run(config, answerer, store, scenario)


def test_app_logs_neither_rejected_bodies_nor_a_spurious_token_warning(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore,
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    """A forged request's body (the question text) must not reach the logs; and Bolt's 'token
    will be unused' warning (it reads SLACK_BOT_TOKEN itself) is noise on every start."""
    config, answerer = indexed
    question = "what is the vault phrase zebra-orchid-5512?"
    monkeypatch.setenv("SLACK_BOT_TOKEN", "xoxb-from-the-environment")

    async def scenario(slack: FakeSlack, app: RunningApp) -> None:
        body = ask(slack, question, GENERAL, "41.000100")
        assert (await app.send(body, secret="not-the-secret"))[0] == 401

    with caplog.at_level(logging.DEBUG):
        run(config, answerer, store, scenario)
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert "Invalid request signature" in logged  # the rejection itself is still logged
    assert "zebra-orchid-5512" not in logged and "41.000100" not in logged
    assert "will be unused" not in logged
