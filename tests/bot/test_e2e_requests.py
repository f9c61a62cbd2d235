"""Slack's HTTP requests end to end: signature and timestamp checks, the URL verification
challenge, and what a rejected request leaves in the logs.
"""

from __future__ import annotations

import logging
import time

import pytest

from bot.app import Answerer
from bot.store import Claim, MentionKey, SQLiteAnswerStore
from retrieval.config import Config
from tests.bot import payloads
from tests.bot.conftest import TEAM
from tests.bot.e2e import (
    ask,
    run,
)
from tests.bot.fake_slack import FakeSlack
from tests.bot.harness import (
    GENERAL,
    RunningApp,
)


def test_app_rejects_bad_signature_and_stale_timestamp(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    config, answerer = indexed

    async def scenario(slack: FakeSlack, app: RunningApp) -> None:
        body = ask(slack, "how do I roll back?", GENERAL, "3.000100")
        assert (await app.send(body, secret="not-the-secret"))[0] == 401
        assert (await app.send(body, timestamp=int(time.time()) - 6 * 60))[0] == 401
        await app.settle()
        assert slack.calls == []
        # Rejected requests never reached the listeners: the message is unclaimed.
        assert store.claim(MentionKey(TEAM, GENERAL, "3.000100"), "1:test") is Claim.NEW

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
    assert "rejected (HTTP 401)" in logged  # the rejection itself is still logged
    assert "zebra-orchid-5512" not in logged and "41.000100" not in logged
    assert "will be unused" not in logged
