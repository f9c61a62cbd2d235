"""A modal answered with `response_action: errors` over Socket Mode: the errors ride in the
envelope's acknowledgement (the only reply Socket Mode has), so Slack keeps the feedback modal
open with "choose what was wrong" beside the input; a bare `ack()` still sends no payload."""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any

from bot.app import Answerer
from bot.render.feedback import (
    CATEGORY_BLOCK,
)
from bot.serve import run_serve
from bot.store import SQLiteAnswerStore
from retrieval.config import Config
from tests.bot import payloads
from tests.bot.conftest import TEAM
from tests.bot.e2e import reason_submission
from tests.bot.harness import GENERAL, fake_slack, mention, socket_settings, with_channels


def _unchosen() -> dict[str, Any]:
    """The thumbs-down modal sent without choosing what was wrong."""
    metadata = json.dumps({"team": TEAM, "channel": GENERAL, "reply_ts": "20.000200"})
    return reason_submission(metadata, None, "no idea")


def test_socket_mode_sends_the_modal_errors_in_the_envelope_ack(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    config, answerer = indexed
    seen: dict[str, dict[str, Any]] = {}

    async def main() -> None:
        async with fake_slack() as slack:
            settings = socket_settings(slack)
            server = asyncio.create_task(run_serve(config, settings, answerer, store, port=0))
            with_channels(slack)
            modal = {"envelope_id": "modal", "type": "interactive", "payload": _unchosen(),
                     "accepts_response_payload": True}  # fmt: skip
            slack.push_socket(modal)
            good = mention("how do I roll back a deploy?", channel=GENERAL, ts="1610241741.000400",
                           event_id="EvMODAL", bot_user_id=slack.bot_user_id)  # fmt: skip
            slack.push_socket(payloads.socket_mode_envelope(good, envelope_id="mention"))
            await slack.wait_for_acks({"modal", "mention"})
            await slack.wait_for("chat.postMessage")
            server.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await server
            seen.update({str(a["envelope_id"]): a for a in slack.socket_acks})

    asyncio.run(main())
    payload = seen["modal"]["payload"]
    assert payload["response_action"] == "errors"
    assert "Choose what was wrong" in payload["errors"][CATEGORY_BLOCK]
    assert "payload" not in seen["mention"]  # a bare ack() carries nothing
    assert store.feedback_entries(wrong_only=False) == ()
