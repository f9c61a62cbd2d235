"""`/docbot` and the "Ask docbot about this" message shortcut end to end: signed slash-command
and message_action payloads to the real Bolt app, answered through the same question path as a
mention, with the scope of the channel they are used in.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.app import Answerer
from bot.interactive import SHORTCUT
from bot.render.commands import SHARE_ACTION
from bot.store import SQLiteAnswerStore
from grounding.answer import Answer
from retrieval.config import Config
from retrieval.scopes import Scope
from tests.bot import payloads
from tests.bot.conftest import CANARY, PAYMENTS_CHANNEL, TEAM
from tests.bot.e2e import reply_text, run, until
from tests.bot.fake_slack import Call, FakeSlack
from tests.bot.harness import ASKER, GENERAL, RunningApp


class ScopeRecorder:
    """The real pipeline; records the scope of every question it is asked."""

    def __init__(self, inner: Answerer) -> None:
        self.inner = inner
        self.scopes: list[Scope] = []

    async def answer(
        self, question: str, scope: Scope, *, context: Sequence[str] = (),
        user_id: str | None = None,
    ) -> Answer:  # fmt: skip
        self.scopes.append(scope)
        return await self.inner.answer(question, scope, context=context, user_id=user_id)


def _command(text: str, channel: str = GENERAL, trigger: str = "111.222.aaa") -> dict[str, str]:
    return payloads.slash_command(text, team=TEAM, channel=channel, user=ASKER, trigger_id=trigger)


def _buttons(call: Call) -> list[str]:
    return [e.get("action_id", "") for b in call.params["blocks"] for e in b.get("elements", ())
            if b["type"] == "actions"]  # fmt: skip


def test_app_slash_command_answers_the_asker_privately_and_shares_once(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    config, answerer = indexed

    async def scenario(slack: FakeSlack, app: RunningApp) -> None:
        status, body = await app.command(_command("how do I roll back a deploy?"))
        assert status == 200 and body == ""  # acknowledged at once, answered after
        (private,) = await slack.wait_for("chat.postEphemeral")
        assert private.params["user"] == ASKER and private.params["channel"] == GENERAL
        assert "deploy/rollback.md" in reply_text(private)
        assert SHARE_ACTION in _buttons(private)
        await app.settle()
        assert not slack.calls_to("chat.postMessage") and not slack.calls_to("reactions.add")
        private_ts = private.response["message_ts"]
        await until(lambda: store.find_answer(TEAM, GENERAL, private_ts) is not None)

        share = payloads.block_actions(
            SHARE_ACTION, "share", team=TEAM, channel=GENERAL, user=ASKER,
            message_ts=private_ts, action_type="button",
        )  # fmt: skip
        share["container"]["is_ephemeral"] = True
        await app.interact(share)
        (posted,) = await slack.wait_for("chat.postMessage")
        assert "thread_ts" not in posted.params and posted.params["channel"] == GENERAL
        assert f"<@{ASKER}> asked with `/docbot`" in reply_text(posted)
        assert "deploy/rollback.md" in reply_text(posted)
        shared_ts = posted.response["ts"]
        await until(lambda: store.find_answer(TEAM, GENERAL, shared_ts) is not None)
        await app.interact(share)  # pressed again: not posted twice
        await slack.wait_for("chat.postEphemeral", 2)
        assert len(slack.calls_to("chat.postMessage")) == 1

    run(config, answerer, store, scenario)


def test_app_slash_command_alone_shows_help_for_this_channel(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    config, answerer = indexed

    async def scenario(slack: FakeSlack, app: RunningApp) -> None:
        await app.command(_command(""))
        (private,) = await slack.wait_for("chat.postEphemeral")
        text = reply_text(private)
        assert "/docbot how do I roll back a deploy?" in text and "*handbook*" in text
        assert "payments" not in text

    run(config, answerer, store, scenario)


def test_app_slash_command_in_a_private_channel_reads_its_collections_and_no_more(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    config, real = indexed
    recorder = ScopeRecorder(real)

    async def scenario(slack: FakeSlack, app: RunningApp) -> None:
        question = "how do I rotate the payments API key?"
        await app.command(_command(question, PAYMENTS_CHANNEL, trigger="1.1.a"))
        (private,) = await slack.wait_for("chat.postEphemeral")
        assert "keys.md" in reply_text(private)
        await app.command(_command(question, GENERAL, trigger="1.1.b"))
        general = (await slack.wait_for("chat.postEphemeral", 2))[1]
        assert "keys.md" not in reply_text(general) and CANARY not in reply_text(general)
        assert [(s.channel_id, s.collections) for s in recorder.scopes] == [
            (PAYMENTS_CHANNEL, ("handbook", "payments")), (GENERAL, ("handbook",)),
        ]  # fmt: skip

    run(config, recorder, store, scenario)


def test_app_message_shortcut_answers_the_message_in_its_thread_once(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    config, answerer = indexed

    async def scenario(slack: FakeSlack, app: RunningApp) -> None:
        def shortcut(trigger: str) -> dict[str, object]:
            return payloads.message_action(
                SHORTCUT, team=TEAM, channel=GENERAL, user=ASKER, message_ts="40.000100",
                message_text="how do I roll back a deploy?", author="U0SOMEONE",
                trigger_id=trigger,
            )  # fmt: skip

        assert (await app.interact(shortcut("2.2.a")))[0] == 200
        (reply,) = await slack.wait_for("chat.postMessage")
        assert reply.params["thread_ts"] == "40.000100" and reply.params["channel"] == GENERAL
        assert "deploy/rollback.md" in reply_text(reply)
        await app.interact(shortcut("2.2.b"))  # someone else asks again: answered already
        await app.settle()
        assert len(slack.calls_to("chat.postMessage")) == 1
        (post,) = slack.posted()
        assert post.params["metadata"]["event_payload"]["question_ts"] == "40.000100"
        stored = store.posted_answer(TEAM, GENERAL, "40.000100")
        assert stored is not None and stored.asker == ASKER

    run(config, answerer, store, scenario)
