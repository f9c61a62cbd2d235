"""What a run taking a question over finds its dead predecessor left in the thread: no reply (it
answers), a finished reply (the question is answered), or a streamed reply cut off before its
end, which the taking-over run finishes in place: the whole answer written into that message
with chat.update, never a second reply. Or nothing yet: Slack's history limit turned the read
away (Later), and the question is taken over again once Slack's Retry-After has passed.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass

from slack_sdk.web.async_client import AsyncWebClient

from bot.events import Turn
from bot.leases import Lease
from bot.render import Message
from bot.replies import Unknown, reply_message, reply_metadata, unfinished_stream
from bot.store import AnswerRecord, AnswerStore
from bot.webapi import SLACK_CALL_ERRORS, retry_after, slack_error, unwaited

log = logging.getLogger("docbot.slack")


@dataclass(frozen=True, slots=True)
class Earlier:
    """A reply to the question already in Slack: its ts; whether it is a stream its run never
    ended (`unfinished`); and the answer stored under it, when its run stored one."""

    ts: str
    unfinished: bool = False
    record: AnswerRecord | None = None


@dataclass(frozen=True, slots=True)
class Unread:
    """Slack could not tell (a failure after the retries, other than its rate limit; more
    replies than docbot reads) and the log has no reply: answered again, unchecked."""


@dataclass(frozen=True, slots=True)
class Later:
    """Slack turned the read of the thread away (HTTP 429) and the log has no reply: whether one
    was posted is known only once Slack lets it be read, after `seconds` (its Retry-After)."""

    seconds: float


async def earlier_reply(
    store: AnswerStore, client: AsyncWebClient, turn: Turn
) -> Earlier | Later | Unread | None:
    """The reply a run before this one posted to `turn`, from the answer log and the thread;
    None when there is none; Unread when Slack cannot tell for another reason than its rate
    limit and the log has none (answering again risks a second reply, not answering risks none
    at all: the second is the lesser harm). Later when the rate limit is why: the 429 is not
    waited out here (a Retry-After of conversations.replies can be a minute, longer than a
    claim's lease), the caller defers the question instead.

    The thread is read even when the log has the reply: a streamed answer is stored under its
    message before the stream's end, and a run killed in between left it unfinished."""
    record = await asyncio.to_thread(store.posted_answer, turn.team, turn.channel, turn.ts)
    try:
        message = await reply_message(unwaited(client), turn)
    except Unknown as exc:
        wait = retry_after(exc.__cause__)
        if record is None:
            return Unread() if wait is None else Later(wait)
        message = None
    if message is None:
        return None if record is None else Earlier(record.reply_ts, record=record)
    ts = str(message["ts"])
    if record is not None and record.reply_ts != ts:
        return Earlier(record.reply_ts, record=record)  # the log names the reply
    return Earlier(ts, unfinished_stream(message, turn.ts), record)


async def defer_takeover(lease: Lease, turn: Turn, later: Later) -> bool:
    """Leave the question to a later run, once Slack's Retry-After has passed (True, logged); or,
    when that would end past the resume window, say so and answer now (False): a reply that may
    show twice rather than none at all."""
    if await lease.defer(later.seconds):
        log.info("event %s: Slack's rate limit kept its thread from being read; taking it over "
                 "again after the Retry-After of %.0f s", turn.event_id, later.seconds)  # fmt: skip
        return True
    log.warning(
        "event %s: Slack's rate limit has kept its thread from being read, and waiting %.0f s "
        "more would pass the window in which questions are resumed; answering again: if its "
        "stopped run posted a reply, this one shows twice. Slack's history limit (one read a "
        "minute for an app outside the Marketplace) was shared by more takeovers than the "
        "window holds; an app the workspace creates from manifest.yml keeps the usual limits "
        "(docs/slack.md, Slack's history limit)", turn.event_id, later.seconds,
    )  # fmt: skip
    return False


async def finish_in_place(
    client: AsyncWebClient, turn: Turn, ts: str, message: Message
) -> str | None:
    """Write `message`, the whole answer, into the cut-off stream `ts`, with the reply metadata
    (so it is found as a finished reply from then on); its ts, or None when Slack did not take
    it (logged: the claim stays open and the next run tries again).

    The stream is stopped first, as Slack may not rewrite a message still streaming; a stream
    Slack already ended (it ends one left idle) refuses the stop, which is expected."""
    try:
        await client.chat_stopStream(channel=turn.channel, ts=ts)
    except SLACK_CALL_ERRORS as exc:
        log.info("chat.stopStream on the cut-off stream %s for event %s: %s", ts,
                 turn.event_id, slack_error(exc))  # fmt: skip
    try:
        await client.chat_update(
            channel=turn.channel, ts=ts, text=message.text,
            blocks=[dict(block) for block in message.blocks], metadata=reply_metadata(turn),
        )  # fmt: skip
    except SLACK_CALL_ERRORS as exc:
        log.warning("chat.update of the cut-off stream %s for event %s failed: %s; it is tried "
                    "again by the next run", ts, turn.event_id, slack_error(exc))  # fmt: skip
        return None
    log.info("finished the stream %s that a stopped run left cut off, for event %s", ts,
             turn.event_id)  # fmt: skip
    return ts
