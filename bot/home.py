"""App Home: on app_home_opened, views.publish a Home tab made for the viewer: what docbot is,
the collections their DMs with docbot may read (the DM's own scope, nothing else), how to ask,
and their recent questions with their status.
"""

from __future__ import annotations

import asyncio
import logging

from slack_sdk.web.async_client import AsyncWebClient

from bot.deps import ListenerDeps
from bot.events import HomeOpened
from bot.failures import log_failure
from bot.render.home import RECENT_SHOWN, RecentQuestion, home_view
from bot.store import UNPOSTED, AnswerRecord
from bot.webapi import SLACK_CALL_ERRORS, slack_error
from retrieval.scopes import ConversationKind

log = logging.getLogger("docbot.slack")


async def handle_home_opened(
    deps: ListenerDeps, client: AsyncWebClient, opened: HomeOpened
) -> None:
    live = await deps.runtime.current()
    if opened.tab != "home":
        return
    # The DM's scope exactly as a question there would get it ("im" can only narrow it).
    scope = await live.policy.scope_for(opened.team, opened.channel, "im")
    try:
        records = await asyncio.to_thread(
            deps.store.recent_answers, opened.team, opened.user, RECENT_SHOWN
        )
    except Exception:
        log_failure(log, "reading %s's recent questions failed", opened.user)
        records = ()
    view = home_view(
        scope.collections, [_recent(r) for r in records],
        unverified=scope.kind is ConversationKind.UNKNOWN,
    )  # fmt: skip
    try:
        await client.views_publish(user_id=opened.user, view=view)
    except SLACK_CALL_ERRORS as exc:
        log.warning("views.publish for %s failed: %s", opened.user, slack_error(exc))


def _recent(record: AnswerRecord) -> RecentQuestion:
    status = record.answer.status.value
    if record.reply_ts.startswith(UNPOSTED):
        status = "unposted"
    return RecentQuestion(record.question, record.channel, status, record.created)
