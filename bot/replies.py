"""Docbot's own Slack calls around a question: the threaded reply, the :eyes:, and finding a post
of docbot's again by its metadata (find_posted): the reply, when a crashed run is taken over or
Slack's answer to the post was lost, and the one-off posts (an escalation note, a shared copy).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

import aiohttp
from slack_sdk.http_retry.builtin_async_handlers import AsyncConnectionErrorRetryHandler
from slack_sdk.web.async_client import AsyncWebClient
from slack_sdk.webhook.async_client import AsyncWebhookClient

from bot.events import Turn
from bot.render import Message, mrkdwn, post_kwargs
from bot.render.commands import not_a_member, reply_unconfirmed
from bot.store import AnswerRecord, staged_reply_ts
from bot.webapi import (
    SLACK_CALL_ERRORS,
    maybe_done,
    rebuilt,
    slack_error,
    slack_error_code,
    unrepeated,
)

log = logging.getLogger("docbot.slack")

WORKING_EMOJI = "eyes"
# :eyes: is cosmetic: one try, a short timeout, never Retry-After (which can be minutes).
COSMETIC_TIMEOUT_SECONDS = 5
# Every reply carries the question's ts in its message metadata, so a run taking over from a
# crashed one can tell whether the reply was already posted (see posted_reply).
REPLY_EVENT_TYPE = "docbot_reply"
# Pages of conversations.replies read when looking for that reply; 200 messages each.
REPLY_PAGES = 5
# A Slack message ts; a `/docbot` question's ts is its ledger key instead (bot/interactive.py).
MESSAGE_TS = re.compile(r"^[0-9]+\.[0-9]+$")
# What Slack answers a post in a conversation docbot is not a member of (a private one it
# cannot see at all is channel_not_found).
NOT_A_MEMBER = frozenset({"not_in_channel", "channel_not_found"})
# Whether a message in Slack is the one find_posted looks for.
Matches = Callable[[Mapping[str, Any]], bool]


async def post(client: AsyncWebClient, turn: Turn, message: Message) -> str | None:
    """Post in the thread (to the asker only, for an ephemeral turn); the reply's ts, or None
    when posting failed (logged); `unposted(turn)` for a private reply that must not be tried
    again (see _post_ephemeral).

    After a failure that may have posted the reply all the same (webapi.maybe_done), the thread
    is read for it (posted_reply) before it is posted again, with the client's retries."""
    if turn.ephemeral:
        return await _post_ephemeral(client, turn, message)
    options: dict[str, Any] = dict(
        channel=turn.channel, thread_ts=turn.reply_thread, metadata=reply_metadata(turn),
        **post_kwargs(message),
    )  # fmt: skip
    try:
        # The first try is not repeated blind: a 5xx or a dropped connection may come after
        # Slack posted the reply, and posting again would show it twice.
        response = await unrepeated(client).chat_postMessage(**options)
    except SLACK_CALL_ERRORS as exc:
        if not maybe_done(exc):
            log.error("chat.postMessage to %s failed for event %s: %s", turn.channel,
                      turn.event_id, slack_error(exc))  # fmt: skip
            return None
        log.warning("chat.postMessage to %s for event %s may have failed (%s); looking for the "
                    "reply", turn.channel, turn.event_id, slack_error(exc))  # fmt: skip
        try:
            found = await posted_reply(client, turn)
        except Unknown:
            # Posting again could show the reply twice. The claim is left open, its post begun
            # (UNSURE), so the run taking the question over reads the thread again when Slack
            # lets it (bot/takeover.py defers past a 429) and posts only if the reply is not there.
            log.warning("cannot tell whether the reply to event %s was posted; leaving it to the "
                        "run that takes the question over", turn.event_id)  # fmt: skip
            return None
        if found is not None:
            log.info("the reply to event %s was posted despite the error", turn.event_id)
            return found
        try:
            response = await client.chat_postMessage(**options)
        except SLACK_CALL_ERRORS as again:
            log.error("chat.postMessage to %s failed for event %s: %s", turn.channel,
                      turn.event_id, slack_error(again))  # fmt: skip
            return None
    ts = response.get("ts")
    return str(ts) if ts else None


async def post_once(
    client: AsyncWebClient, find: Callable[[], Awaitable[str | None]], what: str, **options: Any
) -> str | None:
    """chat.postMessage for a one-off post that must not show twice (`what` names it in the
    log): its ts, or None when it surely is not in Slack (logged).

    Not retried blind (webapi.unrepeated); after a failure that may have posted it all the
    same (webapi.maybe_done), `find` looks for it (see find_posted), and its ts is returned
    when it is there. Raises Unknown when Slack cannot tell."""
    try:
        response = await unrepeated(client).chat_postMessage(**options)
    except SLACK_CALL_ERRORS as exc:
        if not maybe_done(exc):
            log.error("posting %s failed: %s", what, slack_error(exc))
            return None
        log.warning("posting %s may have failed (%s); looking for it", what, slack_error(exc))
        found = await find()
        if found is not None:
            log.info("%s was posted despite the error", what)
        return found
    ts = response.get("ts")
    return str(ts) if ts else None


async def _post_ephemeral(client: AsyncWebClient, turn: Turn, message: Message) -> str | None:
    """The private reply's ts; None when it surely did not reach the asker (a later run may try
    again); `unposted(turn)` when it must not be tried again.

    A private message cannot be read back, so it is never re-sent blind: only a 429 is retried
    (webapi.unrepeated). When Slack may have shown it without saying so (webapi.maybe_done),
    the asker is told, through the command's response_url, that it may not have arrived,
    rather than shown a second copy; and when Slack refuses it because docbot is not a member,
    the asker is told what to do, once."""
    try:
        response = await unrepeated(client).chat_postEphemeral(
            channel=turn.channel, user=turn.user, **post_kwargs(message)
        )
    except SLACK_CALL_ERRORS as exc:
        code = slack_error_code(exc)
        if code in NOT_A_MEMBER and turn.response_url:
            # `/docbot` where docbot is not a member: Slack takes no post from it there, but
            # the command's response_url still reaches the asker, to say what to do.
            log.info("chat.postEphemeral in %s refused (%s): docbot is not a member; telling %s",
                     turn.channel, code, turn.user)  # fmt: skip
            await _respond(turn.response_url, not_a_member())
            return unposted(turn)
        if maybe_done(exc):
            log.warning(
                "chat.postEphemeral to %s in %s for %s may not have arrived (%s); not sent "
                "again", turn.user, turn.channel, turn.event_id, slack_error(exc),
            )  # fmt: skip
            if turn.response_url:
                await _respond(turn.response_url, reply_unconfirmed())
            return unposted(turn)
        log.error(
            "chat.postEphemeral to %s in %s failed for %s: %s",
            turn.user, turn.channel, turn.event_id, slack_error(exc),
        )  # fmt: skip
        return None
    ts = response.get("message_ts")
    return str(ts) if ts else None


def unposted(turn: Turn) -> str:
    """The reply_ts of an answer whose reply is not in Slack (or may not be, for a private one
    that must not be sent twice): its question's staged marker, unique per question."""
    return staged_reply_ts(turn.ts)


async def _respond(response_url: str, message: Message) -> None:
    """A private word to a command's asker through its response_url; a failure is logged. Only a
    connection that was never made is retried: after one that dropped, the word may have been
    delivered, and a private message cannot be read back to check."""
    hook = AsyncWebhookClient(
        response_url, timeout=COSMETIC_TIMEOUT_SECONDS,
        retry_handlers=[AsyncConnectionErrorRetryHandler(error_types=[aiohttp.ClientConnectorError])],
    )  # fmt: skip
    try:
        response = await hook.send(
            text=message.text, blocks=[dict(block) for block in message.blocks],
            response_type="ephemeral",
        )  # fmt: skip
    except (aiohttp.ClientError, TimeoutError) as exc:
        log.warning("the command's response_url could not be reached (the asker may not have "
                    "seen it): %r", exc)  # fmt: skip
        return
    if response.status_code != 200:
        log.warning("the command's response_url answered HTTP %s: %.200r", response.status_code,
                    response.body)  # fmt: skip


class Unknown(Exception):
    """Slack could not tell whether a message docbot posted, or may have posted, exists."""


async def posted_reply(client: AsyncWebClient, turn: Turn) -> str | None:
    """The ts of docbot's reply to `turn` in its thread, None when there is none.

    Raises Unknown when Slack cannot tell (see find_posted); an ephemeral reply cannot be
    looked for, so for one it says none (answering twice is the lesser harm)."""
    message = await reply_message(client, turn)
    return None if message is None else str(message["ts"])


async def reply_message(client: AsyncWebClient, turn: Turn) -> Mapping[str, Any] | None:
    """docbot's reply to `turn` as Slack shows it in the thread (see posted_reply), to tell a
    finished reply from a stream its run never ended (`unfinished_stream`)."""
    if turn.ephemeral:
        return None
    return await find_message(
        client, turn.channel, turn.reply_thread, turn.ts,
        lambda message: _replies_to(message, turn.ts), f"the reply to event {turn.event_id}",
    )  # fmt: skip


async def find_posted(
    client: AsyncWebClient, channel: str, thread: str | None, after: str,
    matches: Matches, what: str,
) -> str | None:  # fmt: skip
    """The ts of the first message in `thread` (in the channel itself when None) from message
    ts `after` on that `matches`; None when there is none. `what` names it in the log.

    Raises Unknown when Slack cannot be asked, or when more messages follow than REPLY_PAGES
    pages hold (logged): not seeing the message is no proof that it is missing."""
    message = await find_message(client, channel, thread, after, matches, what)
    return None if message is None else str(message["ts"])


async def find_message(
    client: AsyncWebClient, channel: str, thread: str | None, after: str,
    matches: Matches, what: str,
) -> Mapping[str, Any] | None:  # fmt: skip
    """find_posted's message itself, as Slack lists it."""
    oldest = after if MESSAGE_TS.match(after) else None
    where = f"{channel}/{thread or '(channel)'}"
    method = "conversations.history" if thread is None else "conversations.replies"
    cursor: str | None = None
    for _ in range(REPLY_PAGES):
        try:
            if thread is None:
                response = await client.conversations_history(
                    channel=channel, oldest=oldest, inclusive=True, include_all_metadata=True,
                    limit=200, cursor=cursor,
                )  # fmt: skip
            else:
                response = await client.conversations_replies(
                    channel=channel, ts=thread, oldest=oldest, inclusive=True,
                    include_all_metadata=True, limit=200, cursor=cursor,
                )  # fmt: skip
        except SLACK_CALL_ERRORS as exc:
            log.warning("%s on %s failed: %s; cannot tell whether %s was posted", method, where,
                        slack_error(exc), what)  # fmt: skip
            raise Unknown from exc
        for message in response.get("messages") or ():
            if isinstance(message, Mapping) and matches(message):
                return message
        cursor = ((response.get("response_metadata") or {}).get("next_cursor")) or None
        if cursor is None:
            return None
    log.warning("the first %d pages of %s after %s do not show it: cannot tell whether %s was "
                "posted", REPLY_PAGES, where, after, what)  # fmt: skip
    raise Unknown


@dataclass(frozen=True, slots=True)
class ReplyTo:
    """What a message of docbot's, read back, says it is: the reply to the question
    `question_ts`, finished (it carries the reply metadata) or a stream still being written
    (only its first block's marker)."""

    question_ts: str
    finished: bool


async def reply_question(client: AsyncWebClient, channel: str, ts: str) -> ReplyTo | None:
    """Which question docbot's message `ts` replies to, by its reply metadata or, for a stream
    not yet ended, its marker; None when it carries neither (it is not a reply). Raises Unknown
    when Slack cannot be read. conversations.replies takes any message's ts, a thread reply's
    included."""

    def reply(message: Mapping[str, Any]) -> bool:
        return message.get("ts") == ts and (
            has_metadata(REPLY_EVENT_TYPE, {})(message) or _marked_question(message) is not None
        )

    message = await find_message(client, channel, ts, ts, reply, f"the message {channel}/{ts}")
    if message is None:
        return None
    if has_metadata(REPLY_EVENT_TYPE, {})(message):
        question_ts = message["metadata"]["event_payload"].get("question_ts")
        return ReplyTo(question_ts, True) if isinstance(question_ts, str) else None
    marked = _marked_question(message)
    return None if marked is None else ReplyTo(marked, False)


def has_metadata(event_type: str, payload: Mapping[str, Any]) -> Matches:
    """A find_posted test: the message's metadata is `event_type` with `payload`'s fields."""

    def matches(message: Mapping[str, Any]) -> bool:
        metadata = message.get("metadata")
        if not isinstance(metadata, Mapping) or metadata.get("event_type") != event_type:
            return False
        found = metadata.get("event_payload")
        return isinstance(found, Mapping) and all(found.get(k) == v for k, v in payload.items())

    return matches


def reply_metadata(turn: Turn) -> dict[str, Any]:
    """The metadata every reply to `turn` carries (a streamed one gets it when it is stopped)."""
    return {"event_type": REPLY_EVENT_TYPE, "event_payload": {"question_ts": turn.ts}}


def stream_marker(question_ts: str) -> str:
    """The block_id of a streamed reply's first block: a stream cut off before its stop has no
    metadata yet, and is still found by this."""
    return f"{REPLY_EVENT_TYPE}:{question_ts}"


def unfinished_stream(message: Mapping[str, Any], question_ts: str) -> bool:
    """Whether `message` is a streamed reply its run never ended: it starts with the stream's
    marker and lacks the reply metadata that the stop (or the update after it) sets."""
    return _has_marker(message, question_ts) and not _has_reply_metadata(message, question_ts)


def _has_marker(message: Mapping[str, Any], question_ts: str) -> bool:
    return _marked_question(message) == question_ts


def _marked_question(message: Mapping[str, Any]) -> str | None:
    """The question ts a streamed reply's marker (its first block's block_id) names, if any."""
    blocks = message.get("blocks")
    first = blocks[0] if isinstance(blocks, list) and blocks else None
    block_id = first.get("block_id") if isinstance(first, Mapping) else None
    prefix = stream_marker("")
    if not isinstance(block_id, str) or not block_id.startswith(prefix):
        return None
    return block_id.removeprefix(prefix) or None


def _has_reply_metadata(message: Mapping[str, Any], question_ts: str) -> bool:
    return has_metadata(REPLY_EVENT_TYPE, {"question_ts": question_ts})(message)


def _replies_to(message: Mapping[str, Any], question_ts: str) -> bool:
    return _has_marker(message, question_ts) or _has_reply_metadata(message, question_ts)


async def react(client: AsyncWebClient, method: str, turn: Turn) -> bool:
    """:eyes: while working; cosmetic, so a failure is only logged. True when it took effect."""
    try:
        await getattr(client, method)(channel=turn.channel, timestamp=turn.ts, name=WORKING_EMOJI)
    except SLACK_CALL_ERRORS as exc:
        log.warning("%s on %s/%s failed: %s", method, turn.channel, turn.ts, slack_error(exc))
        return slack_error_code(exc) == "already_reacted"
    return True


def cosmetic_client(client: AsyncWebClient) -> AsyncWebClient:
    """The same workspace and API as `client`, but one try with a short timeout: a 429 on the
    :eyes: drops it instead of holding the reply for Retry-After."""
    return rebuilt(client, timeout=COSMETIC_TIMEOUT_SECONDS, retry_handlers=[])


def answer_thread(record: AnswerRecord) -> str | None:
    """The thread a stored answer is in; None for a private `/docbot` answer, which is in none
    (its thread_ts is the command's ledger key, and a post there would go nowhere)."""
    return record.thread_ts if MESSAGE_TS.match(record.thread_ts) else None


async def tell(
    client: AsyncWebClient, channel: str, thread_ts: str | None, user: str, message: Message
) -> None:
    """A word only `user` sees, in the thread; cosmetic, so a failure is only logged. Never
    re-sent blind (only a 429 is retried): one that may have arrived is not shown twice."""
    try:
        await unrepeated(client).chat_postEphemeral(
            channel=channel, user=user, thread_ts=thread_ts, text=message.text,
            blocks=[dict(block) for block in message.blocks],
        )  # fmt: skip
    except SLACK_CALL_ERRORS as exc:
        maybe = " (it may have arrived; not sent again)" if maybe_done(exc) else ""
        log.warning("chat.postEphemeral to %s failed: %s%s", user, slack_error(exc), maybe)


def plain_message(text: str) -> Message:
    """A fixed docbot sentence (no document or user text, so nothing to escape)."""
    section = {"type": "section", "text": mrkdwn(text)}
    return Message(text=text, blocks=(section,))
