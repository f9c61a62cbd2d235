"""Socket Mode against the fake Slack's WebSocket on 127.0.0.1, through `run_serve`: every
envelope with an `envelope_id` is acknowledged once, whatever its payload, so Slack does not
redeliver it forever; one that docbot does not handle is logged once, without a traceback."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import Counter
from typing import Any

import pytest

from bot.app import Answerer
from bot.serve import run_serve
from bot.store import SQLiteAnswerStore
from retrieval.config import Config
from tests.bot import payloads
from tests.bot.conftest import TEAM
from tests.bot.e2e import reply_text
from tests.bot.harness import GENERAL, fake_slack, mention, socket_settings, with_channels

MARK = "persimmon-envelope-9913"  # in every malformed payload: never in a log line


def _callback(**fields: Any) -> dict[str, Any]:
    return {"type": "event_callback", "team_id": TEAM, "event_id": "EvSOCK", "note": MARK,
            **fields}  # fmt: skip


def _envelope(envelope_id: str, payload: object, kind: str = "events_api") -> dict[str, Any]:
    return {"envelope_id": envelope_id, "type": kind, "payload": payload,
            "accepts_response_payload": False, "retry_attempt": 0}  # fmt: skip


MALFORMED: dict[str, dict[str, Any]] = {
    "no-payload": {"envelope_id": "no-payload", "type": "events_api", "note": MARK},
    "payload-array": _envelope("payload-array", [MARK]),
    "payload-string": _envelope("payload-string", MARK),
    "payload-null": _envelope("payload-null", None),
    "event-list": _envelope("event-list", _callback(event=[{"type": "app_mention"}])),
    "event-untyped": _envelope("event-untyped", _callback(event={"text": MARK})),
    "team-object": _envelope("team-object", _callback(team_id={"id": 1}, event={"type": "x"})),
    "challenge": _envelope("challenge", {"type": "url_verification", "challenge": MARK}),
    "interactive": _envelope("interactive", {"type": "block_actions", "note": MARK}, "interactive"),
    "slash": _envelope("slash", {"command": "/docbot", "text": MARK}, "slash_commands"),
    "unknown-type": _envelope("unknown-type", {"note": MARK}, "something_new"),
    "untyped": {"envelope_id": "untyped", "payload": _callback(event={"type": "x"})},
}


def test_socket_mode_acknowledges_every_envelope_once_and_logs_the_odd_ones_once(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore, caplog: pytest.LogCaptureFixture
) -> None:
    config, answerer = indexed
    seen: dict[str, Any] = {}

    async def main() -> None:
        async with fake_slack() as slack:
            good = mention("how do I roll back a deploy?", channel=GENERAL, ts="1610241741.000300",
                           event_id="EvGOOD", bot_user_id=slack.bot_user_id)  # fmt: skip
            settings = socket_settings(slack)
            server = asyncio.create_task(run_serve(config, settings, answerer, store, port=0))
            with_channels(slack)
            for envelope in MALFORMED.values():
                slack.push_socket(envelope)
            slack.push_socket({"type": "events_api", "payload": _callback(event={"type": "x"})})
            slack.push_socket(payloads.socket_mode_envelope(good, envelope_id="good"))
            await slack.wait_for_acks({*MALFORMED, "good"})
            (post,) = await slack.wait_for("chat.postMessage")
            server.cancel()  # drains the runs in flight
            with contextlib.suppress(asyncio.CancelledError):
                await server
            seen["acks"] = Counter(a.get("envelope_id") for a in slack.socket_acks)
            seen["post"] = post

    with caplog.at_level(logging.DEBUG):
        asyncio.run(main())
    assert seen["acks"] == Counter([*MALFORMED, "good"])  # each once, nothing else
    assert "deploy/rollback.md" in reply_text(seen["post"])
    records = [r for r in caplog.records if r.levelno >= logging.INFO]
    for envelope_id in MALFORMED:
        about = [r for r in records if f"envelope {envelope_id} " in r.getMessage()]
        assert len(about) == 1, (envelope_id, [r.getMessage() for r in about])
        assert about[0].name == "docbot.serve"
    assert not [r for r in records if "envelope good " in r.getMessage()]
    assert len([r for r in records if "without an envelope_id" in r.getMessage()]) == 1
    assert [r.getMessage() for r in records if r.exc_info] == []  # no tracebacks
    assert not [r.name for r in records if MARK in r.getMessage()]  # (slack_sdk's DEBUG has it)
