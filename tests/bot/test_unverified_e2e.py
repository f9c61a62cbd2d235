"""Conversations Slack cannot vouch for, through the real app: signed HTTP in, the fake Slack's
recorded calls out. The event's own hints (`channel_type: "im"`) never unlock a private
collection; only conversations.info can (docs/access.md, "When docbot cannot tell").
"""

from __future__ import annotations

import asyncio
import json

import pytest

from bot.app import Answerer
from bot.runtime import make_pipeline
from bot.store import SQLiteAnswerStore
from grounding.generators.extractive import ExtractiveGenerator
from retrieval.config import Config, load_config
from retrieval.index import Index, build_index
from tests.bot.conftest import CANARY, PAYMENTS_CHANNEL, TEAM, write_config
from tests.bot.fake_slack import Call
from tests.bot.harness import DM, GENERAL, direct_message, fake_slack, running_app

VAULT = "what is the secret phrase for the payments vault?"


@pytest.fixture(scope="module")
def dm_listed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Config, Answerer]:
    """The e2e config with the private payments collection also granted to the DM D0DIRECT."""
    path = write_config(tmp_path_factory.mktemp("unverified"))
    text = path.read_text(encoding="utf-8")
    listed = f"channels: [{PAYMENTS_CHANNEL}]"
    assert listed in text
    path.write_text(text.replace(listed, f"channels: [{PAYMENTS_CHANNEL}, {DM}]"), "utf-8")
    config = load_config(path)
    build_index(config)
    return config, make_pipeline(config, Index.load(config), ExtractiveGenerator())


def _text(call: Call) -> str:
    return f"{call.params.get('text', '')}\n{json.dumps(call.params.get('blocks', []))}"


@pytest.mark.parametrize("failure", ["ok_false", "http_500"])
@pytest.mark.parametrize("channel", [PAYMENTS_CHANNEL, DM])
def test_app_listed_conversation_with_an_im_hint_gets_nothing_unverified(
    dm_listed: tuple[Config, Answerer], store: SQLiteAnswerStore, channel: str, failure: str
) -> None:
    """conversations.info answers ok:false, or keeps failing with 500s, for a listed channel
    (C0...) or a listed DM (D0...) whose event says `channel_type: "im"`: no private passage,
    and the reply says why."""
    config, answerer = dm_listed

    async def main() -> None:
        async with fake_slack() as slack, running_app(slack, config, answerer, store) as app:
            if failure == "http_500":
                slack.set_channel(channel, is_im=True)  # what Slack would say, if it answered
                slack.fail_next("conversations.info", 500, count=1_000)
            # Else no set_channel: the fake answers conversations.info with ok:false.
            event = direct_message(VAULT, channel=channel, ts="71.000100", event_id="Ev71")
            status, _ = await app.send(event)
            assert status == 200
            (reply,) = await slack.wait_for("chat.postMessage", timeout=10)
            await app.in_flight.drain(10)  # the answer is stored after its reply is posted
            assert app.in_flight.pending() == 0
            lookups = slack.calls_to("conversations.info")
            assert lookups and not any(call.response.get("ok") for call in lookups)
            assert "could not verify this channel" in _text(reply)
            assert "admin" not in _text(reply)  # access may be fine: nothing to grant
            assert CANARY not in slack.all_text()
            record = store.find_answer(TEAM, channel, str(reply.response["ts"]))
            assert record is not None
            assert record.answer.scope.kind == "unknown"
            assert record.answer.scope.collections == ()

    asyncio.run(main())


def test_app_verified_listed_dm_still_reads_its_private_collection(
    dm_listed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    """The other side of the rule: once Slack says it is that DM, the grant applies."""
    config, answerer = dm_listed

    async def main() -> None:
        async with fake_slack() as slack, running_app(slack, config, answerer, store) as app:
            slack.set_channel(DM, is_im=True)
            slack.set_channel(GENERAL, is_channel=True)
            await app.send(direct_message(VAULT, channel=DM, ts="72.000100", event_id="Ev72"))
            (reply,) = await slack.wait_for("chat.postMessage", timeout=10)
            assert CANARY in _text(reply)
            # A public channel pretending to be a DM reads only what a public channel reads.
            event = direct_message(VAULT, channel=GENERAL, ts="72.000200", event_id="Ev73")
            await app.send(event)
            (_, public) = await slack.wait_for("chat.postMessage", 2, timeout=10)
            assert CANARY not in _text(public)
            await app.in_flight.drain(10)  # nothing left running when the fake Slack stops

    asyncio.run(main())
