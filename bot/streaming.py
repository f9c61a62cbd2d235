"""An answer streamed into its thread one verified claim at a time (chat.startStream, appendStream,
stopStream), ending with the sources and feedback controls; today's single post where streaming
is not available.

Only `Verified` claims (grounding/progress.py) are ever sent, and the pipeline reports one only
once it is final, so nothing unverified or later withdrawn reaches Slack. The stream starts with
the first verified claim, after `Lease.begin_post` (so the ledger knows a reply may exist); an
answer with no verified claim never starts one and is posted whole (the not-found reply).
If chat.startStream fails, the thread is read for the stream first (a 5xx or a dropped connection
may come after Slack started it; it is then streamed into), else the answer is posted whole. If an
append fails, its claims go with the stop (and when it may have been delivered all the same, the
message is then rewritten whole, so no claim shows twice); if the stop fails, chat.update writes
the whole answer into the streamed message. Either way one message carries the answer, with the
reply metadata (set by the stop, or the update) by which a run taking over finds it; the first
block also carries a marker (bot/replies.py stream_marker), so even a stream cut off by a crash is
found and not answered a second time.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from slack_sdk.web.async_client import AsyncWebClient

from bot.events import Turn
from bot.leases import Lease
from bot.refusals import Refusals, refusal
from bot.render import Message
from bot.render.live import more_claims_note, streamed_claim
from bot.replies import Unknown, posted_reply, reply_metadata, stream_marker
from bot.webapi import SLACK_CALL_ERRORS, maybe_done, slack_error, unrepeated
from bot.working import Working
from grounding.answer import Source
from grounding.progress import AnswerEvent, Verified

log = logging.getLogger("docbot.slack")

# Claims appended to one message at most: with the sources and controls, within Slack's 50 blocks.
STREAM_CLAIMS = 40


class LiveReply:
    """`report` is the pipeline's Report (stages go on to `working`); `finish` ends the reply."""

    def __init__(
        self, client: AsyncWebClient, turn: Turn, lease: Lease, working: Working,
        refusals: Refusals, *, enabled: bool = True,
    ) -> None:  # fmt: skip
        self._client = client
        self._turn = turn
        self._lease = lease
        self._working = working
        self._refusals = refusals
        self._enabled = enabled and refusals.allowed(turn)
        self._queue: asyncio.Queue[Verified | None] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None
        self._sources: list[Source] = []
        self._unsent: list[dict[str, Any]] = []  # claim blocks an append could not deliver
        self._held = 0  # claims beyond STREAM_CLAIMS
        self.ts: str | None = None  # the streamed message, once chat.startStream answered
        self.shown = 0
        self.unavailable = False  # startStream failed or was refused: post the answer whole
        self.may_post = True  # False once the ledger said another run owns the reply
        # An append failed in a way that may have delivered it: its claims go with the stop,
        # and the message is then rewritten whole, so none shows twice.
        self._rewrite = False

    def report(self, event: AnswerEvent) -> None:
        if not isinstance(event, Verified) or not self._enabled:
            self._working.report(event)
            return
        if self._task is None:
            self._task = asyncio.create_task(self._send())
        self._queue.put_nowait(event)

    @property
    def started(self) -> bool:
        """A streamed message exists: it, not a new post, carries the answer."""
        return self.ts is not None

    async def drain(self) -> None:
        """Until every verified claim reported so far was sent (or given up on)."""
        if self._task is not None:
            self._queue.put_nowait(None)
            await self._task
            self._task = None

    async def finish(self, message: Message, tail: tuple[dict[str, Any], ...]) -> str | None:
        """End the streamed message with `tail` (sources, controls); the reply's ts. `message`
        is the whole answer, written into the streamed message if the stop fails."""
        await self.drain()
        assert self.ts is not None
        blocks = list(tail)
        if self._held:
            blocks.insert(0, more_claims_note(self._held))
        chunks = [{"type": "blocks", "blocks": self._unsent}] if self._unsent else None
        try:
            await self._client.chat_stopStream(
                channel=self._turn.channel, ts=self.ts, chunks=chunks, blocks=blocks,
                metadata=reply_metadata(self._turn),
            )  # fmt: skip
            if not self._rewrite:
                return self.ts
            log.info("rewriting the streamed answer to event %s whole: an append that failed "
                     "may have been delivered", self._turn.event_id)  # fmt: skip
        except SLACK_CALL_ERRORS as exc:
            self._failed("chat.stopStream", exc, "writing the whole answer with chat.update")
        try:
            await self._client.chat_update(
                channel=self._turn.channel, ts=self.ts, text=message.text,
                blocks=[dict(b) for b in message.blocks], metadata=reply_metadata(self._turn),
            )  # fmt: skip
        except SLACK_CALL_ERRORS as exc:
            self._failed("chat.update", exc, "the streamed message keeps its verified claims")
        return self.ts

    async def _send(self) -> None:
        while (verified := await self._queue.get()) is not None:
            self._sources.extend(verified.sources)
            if self.unavailable or not self.may_post:
                continue
            if self.shown >= STREAM_CLAIMS:
                self._held += 1
                continue
            block = streamed_claim(verified.claim, self._sources)
            if self.ts is None:
                await self._start(block)
            else:
                await self._append(block)

    async def _start(self, block: dict[str, Any]) -> None:
        await self._working.stop()  # a status set after the message would show under it
        if not await self._lease.begin_post():
            self.may_post = False
            return
        turn = self._turn
        first = {**block, "block_id": stream_marker(turn.ts)}
        try:
            # Not retried blind: Slack may have started the stream before its answer was lost.
            response = await unrepeated(self._client).chat_startStream(
                channel=turn.channel, thread_ts=turn.reply_thread, recipient_team_id=turn.team,
                recipient_user_id=turn.user, chunks=[{"type": "blocks", "blocks": [first]}],
            )  # fmt: skip
        except SLACK_CALL_ERRORS as exc:
            self.ts = await self._started_anyway(exc)
            if self.ts is None:
                self.unavailable = True
                if refusal(exc):
                    self._refusals.refused(turn)
                self._failed("chat.startStream", exc, "posting the answer whole instead")
                return
            log.info("the stream for event %s was started despite the error (%s)",
                     turn.event_id, slack_error(exc))  # fmt: skip
            self.shown += 1
            return
        self.ts = str(response.get("ts") or "") or None
        self.unavailable = self.ts is None
        self.shown += 1

    async def _started_anyway(self, exc: Exception) -> str | None:
        """The stream's ts when a failed start may have started it all the same and the thread
        shows it (its first block's marker); else None, and the answer is posted whole (when
        the thread cannot be read: a second message is the lesser harm than none)."""
        if not maybe_done(exc):
            return None
        try:
            return await posted_reply(self._client, self._turn)
        except Unknown:
            return None

    async def _append(self, block: dict[str, Any]) -> None:
        assert self.ts is not None
        try:
            # Not retried blind: a retry of an append Slack made would show its claims twice.
            await unrepeated(self._client).chat_appendStream(
                channel=self._turn.channel, ts=self.ts,
                chunks=[{"type": "blocks", "blocks": [*self._unsent, block]}],
            )  # fmt: skip
            self._unsent = []
        except SLACK_CALL_ERRORS as exc:
            self._unsent.append(block)
            self._rewrite = self._rewrite or maybe_done(exc)
            self._failed("chat.appendStream", exc, "sending its claims with the stop")
        self.shown += 1

    def _failed(self, method: str, exc: Exception, then: str) -> None:
        log.warning("%s on %s for event %s failed: %s; %s", method, self._turn.channel,
                    self._turn.event_id, slack_error(exc), then)  # fmt: skip
