"""The Slack listeners: mentions and DMs become answers in the thread, reactions become feedback.

Glue only: validate, de-duplicate, resolve the scope, call the pipeline, render, post, store.
Every handler runs after Bolt has acknowledged the event, so each one tells the user something
rather than letting an exception end in silence.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol

from slack_bolt.async_app import AsyncApp
from slack_bolt.context.async_context import AsyncBoltContext
from slack_sdk.errors import SlackApiError, SlackClientError
from slack_sdk.web.async_client import AsyncWebClient

from bot.events import Reaction, Turn, mentions, parse_reaction, parse_turn
from bot.policy import ChannelPolicy
from bot.render import Message, post_kwargs, render_answer, render_error, render_help
from bot.store import AnswerRecord, AnswerStore
from grounding.answer import Answer
from retrieval.config import Config
from retrieval.errors import InputError
from retrieval.query import check_question
from retrieval.scopes import Scope

log = logging.getLogger("docbot.slack")

WORKING_EMOJI = "eyes"
UNPOSTED = "unposted:"  # reply_ts prefix of an answer whose reply could not be posted
INTERNAL_ERROR = (
    "something went wrong on my side while answering (it has been logged for the docbot admins)"
)


class Answerer(Protocol):
    """The grounding pipeline as the Slack app sees it; `AnswerPipeline` conforms."""

    async def answer(
        self,
        question: str,
        scope: Scope,
        *,
        context: Sequence[str] = (),
        user_id: str | None = None,
    ) -> Answer: ...


def _utc_now() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True)
class ListenerDeps:
    config: Config
    answerer: Answerer
    store: AnswerStore
    policy: ChannelPolicy
    now: Callable[[], datetime] = _utc_now


def register(app: AsyncApp, deps: ListenerDeps) -> None:
    """Every event docbot subscribes to has a listener; anything else is acknowledged and dropped
    (an unhandled event is answered 404, and Slack would keep retrying it)."""

    async def on_mention(
        body: dict[str, Any], context: AsyncBoltContext, client: AsyncWebClient
    ) -> None:
        turn = parse_turn(body, context.bot_user_id)
        if turn is not None:
            await handle_turn(deps, client, turn)

    async def on_message(
        body: dict[str, Any], context: AsyncBoltContext, client: AsyncWebClient
    ) -> None:
        turn = parse_turn(body, context.bot_user_id)
        if turn is None:
            return
        if turn.channel_type == "im":
            await handle_turn(deps, client, turn)
        elif turn.in_thread and mentions(_event_text(body), context.bot_user_id):
            # Only with `message.channels` subscribed; the same message also comes as an
            # app_mention, and claim_mention lets exactly one of the two through.
            await handle_reason_only(deps, client, turn)

    async def on_reaction_added(
        body: dict[str, Any], context: AsyncBoltContext, client: AsyncWebClient
    ) -> None:
        await handle_reaction(deps, client, parse_reaction(body), context.bot_user_id, added=True)

    async def on_reaction_removed(
        body: dict[str, Any], context: AsyncBoltContext, client: AsyncWebClient
    ) -> None:
        await handle_reaction(deps, client, parse_reaction(body), context.bot_user_id, added=False)

    async def on_other(body: dict[str, Any]) -> None:
        log.debug("ignoring event %s", (body.get("event") or {}).get("type"))

    app.event("app_mention")(on_mention)
    app.event("message")(on_message)
    app.event("reaction_added")(on_reaction_added)
    app.event("reaction_removed")(on_reaction_removed)
    app.event(re.compile(r".+"))(on_other)  # registered last: listeners match in order


# --- questions -------------------------------------------------------------------------------


async def handle_turn(deps: ListenerDeps, client: AsyncWebClient, turn: Turn) -> None:
    """One question, answered at most once across redeliveries and restarts."""
    if turn.team not in deps.config.teams:
        log.info("ignoring event %s from unconfigured team %s", turn.event_id, turn.team)
        return
    if not await _claim(deps.store, turn):
        return
    try:
        await _respond(deps, client, turn)
    except Exception:
        # The edge catches broadly so the asker always hears back; the traceback is logged.
        log.exception("handling event %s in %s failed", turn.event_id, turn.channel)
        await _post(client, turn, render_error(INTERNAL_ERROR))


async def _respond(deps: ListenerDeps, client: AsyncWebClient, turn: Turn) -> None:
    if turn.in_thread and await _record_reason(deps, client, turn):
        return
    scope = await deps.policy.scope_for(
        turn.team, turn.channel, turn.channel_type, ext_shared=turn.ext_shared
    )
    if not turn.text:
        await _post(client, turn, render_help(scope.collections, deps.config.feedback))
        return
    await _react(client, "reactions_add", turn)
    try:
        message, answer = await _answer(deps, turn, scope)
        reply_ts = await _post(client, turn, message)
        if answer is not None:
            await _save(deps, turn, answer, reply_ts)
    finally:
        await _react(client, "reactions_remove", turn)


async def handle_reason_only(deps: ListenerDeps, client: AsyncWebClient, turn: Turn) -> None:
    """A channel thread reply seen as `message`: record it if it is an awaited reason, else leave
    it unclaimed for the app_mention delivery of the same message."""
    if turn.team not in deps.config.teams or await _pending_reason(deps.store, turn) is None:
        return
    if await _claim(deps.store, turn):
        await _record_reason(deps, client, turn)


async def _claim(store: AnswerStore, turn: Turn) -> bool:
    """Never trust the retry header (Socket Mode says 0 on a first delivery): ask the store."""
    if not await asyncio.to_thread(store.claim_event, turn.event_id):
        log.info("event %s was already handled", turn.event_id)
        return False
    if not await asyncio.to_thread(store.claim_mention, turn.team, turn.channel, turn.ts):
        log.info(
            "message %s/%s was already handled (event %s)", turn.channel, turn.ts, turn.event_id
        )
        return False
    return True


async def _answer(deps: ListenerDeps, turn: Turn, scope: Scope) -> tuple[Message, Answer | None]:
    try:
        question = check_question(turn.text)
    except InputError as exc:
        return render_error(str(exc)), None
    try:
        context: tuple[str, ...] = ()
        if turn.in_thread:
            context = await asyncio.to_thread(
                deps.store.thread_questions, turn.team, turn.channel, turn.reply_thread
            )
        answer = await deps.answerer.answer(question, scope, context=context, user_id=turn.user)
        return render_answer(answer, deps.config.feedback), answer
    except Exception:
        # The edge catches broadly so the asker always hears back; the traceback is logged.
        log.exception("answering event %s in %s failed", turn.event_id, turn.channel)
        return render_error(INTERNAL_ERROR), None


async def _post(client: AsyncWebClient, turn: Turn, message: Message) -> str | None:
    """Post in the thread; the reply's ts, or None when posting failed (logged)."""
    try:
        response = await client.chat_postMessage(
            channel=turn.channel, thread_ts=turn.reply_thread, **post_kwargs(message)
        )
    except (SlackApiError, SlackClientError, OSError, TimeoutError) as exc:
        log.error(
            "chat.postMessage to %s failed for event %s: %s",
            turn.channel,
            turn.event_id,
            _slack_error(exc),
        )
        return None
    ts = response.get("ts")
    return str(ts) if ts else None


async def _save(deps: ListenerDeps, turn: Turn, answer: Answer, reply_ts: str | None) -> None:
    """Kept even when the reply could not be posted: it is still evidence of what happened."""
    # reply_ts is unique per channel in the store; an unposted reply gets a marker that no
    # Slack message ts can equal (so no reaction ever finds it) and that stays unique.
    reply = reply_ts or f"{UNPOSTED}{turn.ts}"
    record = AnswerRecord(
        team=turn.team, channel=turn.channel, thread_ts=turn.reply_thread, reply_ts=reply,
        question_ts=turn.ts, asker=turn.user, question=answer.question,
        answer=answer.to_dict(), created=deps.now().isoformat(),
    )  # fmt: skip
    try:
        await asyncio.to_thread(deps.store.save_answer, record)
    except Exception:
        log.exception("storing the answer to event %s failed", turn.event_id)


async def _react(client: AsyncWebClient, method: str, turn: Turn) -> None:
    """:eyes: while working; cosmetic, so a failure (e.g. already_reacted) is only logged."""
    try:
        await getattr(client, method)(channel=turn.channel, timestamp=turn.ts, name=WORKING_EMOJI)
    except (SlackApiError, SlackClientError, OSError, TimeoutError) as exc:
        log.warning("%s on %s/%s failed: %s", method, turn.channel, turn.ts, _slack_error(exc))


# --- feedback --------------------------------------------------------------------------------


async def handle_reaction(
    deps: ListenerDeps, client: AsyncWebClient, reaction: Reaction | None,
    bot_user_id: str | None, *, added: bool,
) -> None:  # fmt: skip
    """Feedback on docbot's own answers only, from the configured emoji sets; idempotent."""
    if reaction is None or reaction.user == bot_user_id or reaction.team not in deps.config.teams:
        return
    kind = _feedback_kind(deps.config, reaction.emoji)
    if kind is None:
        return
    record = await asyncio.to_thread(
        deps.store.find_answer, reaction.team, reaction.channel, reaction.ts
    )
    if record is None or record.id is None:
        return  # not a docbot answer
    if added:
        await _add_feedback(deps, client, reaction, kind, record, record.id, bot_user_id)
    else:
        await _retract_feedback(deps, reaction, record.id)


async def _add_feedback(
    deps: ListenerDeps, client: AsyncWebClient, reaction: Reaction, kind: str,
    record: AnswerRecord, answer_id: int, bot_user_id: str | None,
) -> None:  # fmt: skip
    store, user = deps.store, reaction.user
    before = await asyncio.to_thread(store.wrong_count, answer_id)
    at = deps.now().isoformat()
    new = await asyncio.to_thread(store.add_feedback, answer_id, user, kind, reaction.emoji, at)
    # Thank (and invite a reason from) each person once, on their first wrong-mark.
    if new and kind == "wrong" and await asyncio.to_thread(store.wrong_count, answer_id) > before:
        await asyncio.to_thread(store.invite_reason, answer_id, user)
        await _thank_for_wrong(client, record, user, bot_user_id)


async def _retract_feedback(deps: ListenerDeps, reaction: Reaction, answer_id: int) -> None:
    # Retracting the user's last wrong-mark also withdraws their invitation (in the store).
    await asyncio.to_thread(deps.store.remove_feedback, answer_id, reaction.user, reaction.emoji)


async def _thank_for_wrong(
    client: AsyncWebClient, record: AnswerRecord, user: str, bot_user_id: str | None
) -> None:
    me = f"<@{bot_user_id}>" if bot_user_id else "docbot"
    text = (
        "Thanks for flagging this answer as wrong; it has been logged for the docbot admins. "
        f"If you can, reply in this thread mentioning {me} with what was wrong or what the "
        "right answer is: your next reply there is saved with the report."
    )
    try:
        await client.chat_postEphemeral(
            channel=record.channel, user=user, thread_ts=record.thread_ts, text=text
        )
    except (SlackApiError, SlackClientError, OSError, TimeoutError) as exc:
        log.warning("chat.postEphemeral to %s failed: %s", user, _slack_error(exc))


async def _record_reason(deps: ListenerDeps, client: AsyncWebClient, turn: Turn) -> bool:
    """True when this thread reply is the reason its author was invited to give after a :x:."""
    if not turn.text:
        return False
    answer_id = await _pending_reason(deps.store, turn)
    if answer_id is None:
        return False
    try:
        # Storing the reason also answers the invitation, so the next reply is a question.
        await asyncio.to_thread(
            deps.store.add_reason, answer_id, turn.user, turn.text, deps.now().isoformat()
        )
        reply = "Thanks, I saved that with the report on my answer."
    except Exception:
        log.exception("storing the reason for answer %s failed", answer_id)
        reply = "Sorry, I could not save that with the report; please tell the docbot admins."
    await _post(client, turn, _plain_message(reply))
    return True


async def _pending_reason(store: AnswerStore, turn: Turn) -> int | None:
    """The answer in this thread whose reason the author was invited to give after a :x:.

    Kept in the store, so an invitation survives a restart of docbot."""
    return await asyncio.to_thread(
        store.pending_reason, turn.team, turn.channel, turn.reply_thread, turn.user
    )


def _plain_message(text: str) -> Message:
    """A fixed docbot sentence (no document or user text, so nothing to escape)."""
    section = {"type": "section", "text": {"type": "mrkdwn", "text": text}}
    return Message(text=text, blocks=(section,))


def _feedback_kind(config: Config, emoji: str) -> str | None:
    if emoji in config.feedback.wrong:
        return "wrong"
    if emoji in config.feedback.helpful:
        return "helpful"
    return None


def _event_text(body: Mapping[str, Any]) -> str:
    event = body.get("event")
    return str(event.get("text", "")) if isinstance(event, Mapping) else ""


def _slack_error(exc: Exception) -> str:
    if isinstance(exc, SlackApiError):
        return str(exc.response.get("error"))
    return repr(exc)
