"""The messages tab as Slack's AI-app surface: when someone opens a new assistant thread with
docbot (`assistant_thread_started`), docbot suggests a few questions drawn from the top headings
of what the thread's questions may read: the docs of the channel the person is looking at when
they are a member of it, else what their DMs with docbot may read, and nothing from any other
channel's docs. Both that event and `assistant_thread_context_changed` say which channel the
person is looking at; docbot remembers it for the thread's questions (bot/thread_context.py).

Bolt's own Assistant middleware is not used: its default context store writes the context into
the metadata of docbot's first message in the thread (chat.update), and a new thread has none;
replicas share the answer store instead."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, ValidationError
from slack_sdk.web.async_client import AsyncWebClient

from bot.deps import ListenerDeps
from bot.failures import log_failure
from bot.live import Live
from bot.render.home import PROMPTS_SHOWN, PROMPTS_TITLE, suggested_prompts
from bot.thread_context import member_channel_scope
from bot.webapi import SLACK_CALL_ERRORS, slack_error
from retrieval.scopes import Scope

log = logging.getLogger("docbot.slack")


@runtime_checkable
class Outline(Protocol):
    """An answerer that can say what a scope's documents are about (AnswerPipeline does)."""

    def top_headings(self, scope: Scope, limit: int) -> tuple[str, ...]: ...


@dataclass(frozen=True, slots=True)
class ThreadEvent:
    """`user` opened a new assistant thread `thread_ts` in their DM `channel` with docbot
    (`assistant_thread_started`), or, with the thread open, looked at another part of Slack
    (`assistant_thread_context_changed`): `context_channel` is the channel they are looking at
    now ("" when none of this team's), `seen` Slack's time of the event."""

    team: str
    user: str
    channel: str
    thread_ts: str
    context_channel: str = ""
    seen: float = 0.0
    started: bool = True  # False: the context changed in a thread opened before


class _Slice(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class _Context(_Slice):
    channel_id: str | None = None
    team_id: str | None = None


class _Thread(_Slice):
    user_id: str
    channel_id: str
    thread_ts: str
    context: _Context = _Context()


class _ThreadEventBody(_Slice):
    type: str
    assistant_thread: _Thread
    event_ts: str = "0"


class _Envelope(_Slice):
    team_id: str


THREAD_EVENTS = ("assistant_thread_started", "assistant_thread_context_changed")


def parse_thread_event(body: Mapping[str, Any]) -> ThreadEvent | None:
    """Either assistant-thread event; None for anything else."""
    try:
        envelope = _Envelope.model_validate(body)
        event = _ThreadEventBody.model_validate(body.get("event"))
        seen = float(event.event_ts)
    except (ValidationError, ValueError):
        return None
    if event.type not in THREAD_EVENTS or not event.assistant_thread.channel_id:
        return None
    thread = event.assistant_thread
    context = thread.context
    # A channel of another workspace (Enterprise Grid) is not one this team's config speaks for.
    ours = context.team_id in (None, envelope.team_id)
    return ThreadEvent(
        envelope.team_id, thread.user_id, thread.channel_id, thread.thread_ts,
        context_channel=(context.channel_id or "") if ours else "", seen=seen,
        started=event.type == THREAD_EVENTS[0],
    )  # fmt: skip


async def handle_thread_event(
    deps: ListenerDeps, client: AsyncWebClient, thread: ThreadEvent
) -> None:
    """Remember the channel the thread looks at (for bot/thread_context.py); on a new thread,
    assistant.threads.setSuggestedPrompts with the top headings of what it may read."""
    await _remember(deps, thread)
    if not thread.started:
        return
    live = await deps.runtime.current()
    if thread.team not in live.config.teams or not isinstance(live.answerer, Outline):
        return
    scope = await _prompts_scope(live, client, thread)
    headings = await asyncio.to_thread(live.answerer.top_headings, scope, PROMPTS_SHOWN)
    prompts = suggested_prompts(headings)
    if not prompts:
        return
    try:
        await client.assistant_threads_setSuggestedPrompts(
            channel_id=thread.channel, thread_ts=thread.thread_ts, prompts=prompts,
            title=PROMPTS_TITLE,
        )  # fmt: skip
    except SLACK_CALL_ERRORS as exc:
        log.warning("assistant.threads.setSuggestedPrompts for %s failed: %s", thread.user,
                    slack_error(exc))  # fmt: skip


async def _prompts_scope(live: Live, client: AsyncWebClient, thread: ThreadEvent) -> Scope:
    """What a question in the new thread will read (bot/thread_context.py): the channel its
    person is looking at if they are a member of it, else the DM's scope exactly as a question
    there gets it ("im" can only narrow it)."""
    seen = thread.context_channel
    if seen and seen != thread.channel:
        refused = "the DM's own prompts are suggested"
        scope = await member_channel_scope(live, client, thread.team, thread.user, seen, refused)
        if scope is not None:
            return scope
    return await live.policy.scope_for(thread.team, thread.channel, "im")


async def _remember(deps: ListenerDeps, event: ThreadEvent) -> None:
    """Keep the thread's context for its next question; without it (the store failed) the
    thread's questions read what the DM may read, as when no event said."""
    try:
        await asyncio.to_thread(
            deps.store.set_thread_context, event.team, event.channel, event.thread_ts,
            event.context_channel, event.seen,
        )  # fmt: skip
    except Exception:
        log_failure(log, "remembering the context of assistant thread %s failed", event.thread_ts)
