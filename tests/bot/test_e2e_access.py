"""Who may read what, end to end: private collections reach only their channels, other
workspaces are ignored, and a channel that cannot be looked up fails closed.
"""

from __future__ import annotations

import pytest

from bot.app import Answerer
from bot.store import SQLiteAnswerStore
from retrieval.config import Config
from tests.bot.conftest import CANARY, PAYMENTS_CHANNEL
from tests.bot.e2e import (
    ask,
    reply_text,
    run,
)
from tests.bot.fake_slack import FakeSlack
from tests.bot.harness import (
    CONNECT,
    DM,
    GENERAL,
    RunningApp,
    direct_message,
)


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
        assert "may not read any documentation collection" in by_channel[(CONNECT, "4.000300")]

    run(config, answerer, store, scenario)


def test_app_ignores_unconfigured_teams(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    config, answerer = indexed

    async def scenario(slack: FakeSlack, app: RunningApp) -> None:
        body = ask(slack, "how do I roll back?", GENERAL, "5.000100", team="T0ELSEWHERE")
        assert (await app.send(body))[0] == 200
        await app.settle()
        assert [c.method for c in slack.calls if c.method != "auth.test"] == []

    run(config, answerer, store, scenario)


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
