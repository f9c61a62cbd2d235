"""The messages tab as Slack's AI-app surface: when someone opens a new assistant thread with
docbot (`assistant_thread_started`), docbot suggests a few questions drawn from the top headings
of what that person's DMs with docbot may read, and nothing from any other channel's docs."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, ValidationError
from slack_sdk.web.async_client import AsyncWebClient

from bot.deps import ListenerDeps
from bot.render.home import PROMPTS_SHOWN, PROMPTS_TITLE, suggested_prompts
from bot.webapi import SLACK_CALL_ERRORS, slack_error
from retrieval.scopes import Scope

log = logging.getLogger("docbot.slack")


@runtime_checkable
class Outline(Protocol):
    """An answerer that can say what a scope's documents are about (AnswerPipeline does)."""

    def top_headings(self, scope: Scope, limit: int) -> tuple[str, ...]: ...


@dataclass(frozen=True, slots=True)
class ThreadStarted:
    """`user` opened a new assistant thread `thread_ts` in their DM `channel` with docbot."""

    team: str
    user: str
    channel: str
    thread_ts: str


class _Slice(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class _Thread(_Slice):
    user_id: str
    channel_id: str
    thread_ts: str


class _Started(_Slice):
    type: str
    assistant_thread: _Thread


class _Envelope(_Slice):
    team_id: str


def parse_thread_started(body: Mapping[str, Any]) -> ThreadStarted | None:
    try:
        envelope = _Envelope.model_validate(body)
        event = _Started.model_validate(body.get("event"))
    except ValidationError:
        return None
    if event.type != "assistant_thread_started" or not event.assistant_thread.channel_id:
        return None
    thread = event.assistant_thread
    return ThreadStarted(envelope.team_id, thread.user_id, thread.channel_id, thread.thread_ts)


async def handle_thread_started(
    deps: ListenerDeps, client: AsyncWebClient, started: ThreadStarted
) -> None:
    """assistant.threads.setSuggestedPrompts with the DM's readable docs' top headings."""
    live = await deps.runtime.current()
    if started.team not in live.config.teams or not isinstance(live.answerer, Outline):
        return
    # The DM's scope exactly as a question there would get it ("im" can only narrow it).
    scope = await live.policy.scope_for(started.team, started.channel, "im")
    headings = await asyncio.to_thread(live.answerer.top_headings, scope, PROMPTS_SHOWN)
    prompts = suggested_prompts(headings)
    if not prompts:
        return
    try:
        await client.assistant_threads_setSuggestedPrompts(
            channel_id=started.channel, thread_ts=started.thread_ts, prompts=prompts,
            title=PROMPTS_TITLE,
        )  # fmt: skip
    except SLACK_CALL_ERRORS as exc:
        log.warning("assistant.threads.setSuggestedPrompts for %s failed: %s", started.user,
                    slack_error(exc))  # fmt: skip
