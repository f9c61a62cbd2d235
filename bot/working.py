"""That docbot is working on a question, shown while it works: the one progress path every entry
point takes (bot/questions.py `_respond`, so mentions, DMs and resumed runs alike).

Slack's AI-app status (assistant.threads.setStatus, with loading messages naming the stage) where
the workspace allows it; the :eyes: reaction where it does not. Which applies is decided by
Slack's answer to the first setStatus in a conversation, remembered per conversation for the
life of the process (bot/refusals.py), so a workspace without the feature gets its :eyes: at
once next time.
Everything here is cosmetic: a failure is logged and never holds up or changes the answer.
"""

from __future__ import annotations

import asyncio
import logging
from types import TracebackType

from slack_sdk.web.async_client import AsyncWebClient

from bot.events import Turn
from bot.refusals import Refusals, refusal
from bot.render.live import CLEARED, WORKING, Status, status_for
from bot.replies import react
from bot.webapi import SLACK_CALL_ERRORS, slack_error
from grounding.progress import AnswerEvent

log = logging.getLogger("docbot.slack")


class Working:
    """`async with Working(client, turn, support) as working:` shows progress until the block
    ends; `working.report` is the pipeline's Report; `await working.stop()` before posting the
    reply, and `working.posted = True` once it is in the thread (else the status is cleared).

    `client` should be the cosmetic client (one try, short timeout, bot/replies.py)."""

    def __init__(self, client: AsyncWebClient, turn: Turn, support: Refusals) -> None:
        self._client = client
        self._turn = turn
        self._support = support
        self._latest: Status = WORKING
        self._wake = asyncio.Event()
        self._stopped = False
        self._shown: Status | None = None  # the last status Slack accepted
        self.posted = False  # set by the caller once its reply is in the thread
        self._eyes: asyncio.Task[bool] | None = None
        self._task: asyncio.Task[None] | None = None

    async def __aenter__(self) -> Working:
        self._task = asyncio.create_task(self._run())
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.stop()
        if self._eyes is not None and await self._eyes:
            # Removed only once the add is answered (a removal first would leave the :eyes: on).
            await react(self._client, "reactions_remove", self._turn)
        elif self._shown is not None and not self.posted:
            await self._set(CLEARED)  # nothing was posted, which would have cleared it

    def report(self, event: AnswerEvent) -> None:
        """The pipeline's progress: shown as the latest status (intermediate ones may be skipped
        when Slack is slower than the pipeline: only the newest matters)."""
        status = status_for(event)
        if status is not None and not self._stopped:
            self._latest = status
            self._wake.set()

    async def stop(self) -> None:
        """No more status updates: waits for one in flight, so none is set after the reply (a
        reply in the thread clears the status; one set after it would show again)."""
        if self._stopped:
            return
        self._stopped = True
        self._wake.set()
        if self._task is not None:
            await self._task

    async def _run(self) -> None:
        if not self._support.allowed(self._turn) or not await self._set(WORKING):
            # In the background: the answer never waits for the :eyes:.
            self._eyes = asyncio.create_task(react(self._client, "reactions_add", self._turn))
            return
        while not self._stopped:
            await self._wake.wait()
            self._wake.clear()
            if not self._stopped and self._latest != self._shown:
                await self._set(self._latest)

    async def _set(self, status: Status) -> bool:
        """True when Slack showed it; a refusal in Slack's words is remembered (see above)."""
        turn = self._turn
        try:
            await self._client.assistant_threads_setStatus(
                channel_id=turn.channel, thread_ts=turn.reply_thread, status=status.text,
                loading_messages=list(status.loading_messages) or None,
            )  # fmt: skip
        except SLACK_CALL_ERRORS as exc:
            refused = refusal(exc)
            if refused:
                self._support.refused(turn)
            log.info("assistant.threads.setStatus on %s/%s failed: %s%s", turn.channel,
                     turn.reply_thread, slack_error(exc),
                     "; :eyes: in this conversation from now on" if refused else "")  # fmt: skip
            return False
        self._shown = status
        return True
