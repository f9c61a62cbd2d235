"""Slack's own example payloads (../shared/slack/fixtures) replayed through the real app.

The rest of the e2e suite uses tests/bot/payloads.py so it runs anywhere; here the real
deliveries themselves, with only their ids pointed at the test workspace, go through the same
signed HTTP path. Skips when ../shared is absent.
"""

from __future__ import annotations

import asyncio
from typing import Any

from bot.app import Answerer
from bot.store import SQLiteAnswerStore
from retrieval.config import Config
from tests.bot.conftest import TEAM
from tests.bot.e2e import stored_reply, until
from tests.bot.harness import ASKER, GENERAL, fake_slack, running_app, with_channels
from tests.bot.payloads import real


def _point_at_test_workspace(body: dict[str, Any], event_id: str) -> dict[str, Any]:
    body["team_id"] = TEAM
    body["event_id"] = event_id
    for authorization in body.get("authorizations", []):
        authorization["team_id"] = TEAM
    return body


def test_shared_mention_and_reactions_round_trip(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    config, answerer = indexed
    mention = _point_at_test_workspace(real("app_mention.json"), "EvSharedMention")
    added = _point_at_test_workspace(real("reaction_added.json"), "EvSharedAdded")
    removed = _point_at_test_workspace(real("reaction_removed.json"), "EvSharedRemoved")

    async def main() -> None:
        async with (
            fake_slack() as slack,
            running_app(with_channels(slack), config, answerer, store) as app,
        ):
            event = mention["event"]
            event.update(team=TEAM, channel=GENERAL, user=ASKER)
            event["text"] = f"<@{slack.bot_user_id}> how do I roll back a deploy?"
            assert (await app.send(mention))[0] == 200
            (post,) = await slack.wait_for("chat.postMessage")
            assert post.params["thread_ts"] == event["ts"]
            assert "Sources" in post.params["text"]
            reply_ts = await stored_reply(slack, store)
            record = store.find_answer(TEAM, GENERAL, reply_ts)
            assert record is not None and record.id is not None
            answer_id = record.id
            for body in (added, removed):
                body["event"].update(reaction="x", user="U0REVIEWER")
                body["event"]["item"].update(channel=GENERAL, ts=reply_ts)
            assert (await app.send(added))[0] == 200
            await slack.wait_for("chat.postEphemeral")
            assert store.wrong_count(record.id) == 1
            assert (await app.send(removed))[0] == 200
            await until(lambda: store.wrong_count(answer_id) == 0)
            assert store.wrong_count(answer_id) == 0

    asyncio.run(main())
