"""Shared pieces of the end-to-end tests (tests/bot/test_e2e_*.py): run a scenario against the
real Bolt app and the fake Slack, ask docbot, read replies, and wait on recorded state.

The answerer is the real pipeline (index over tests/bot/corpus + the extractive generator);
the work happens after the ack, so tests poll the fake's records with a short bounded wait.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import json
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from bot.app import Answerer
from bot.render.feedback import (
    CATEGORY_ACTION,
    CATEGORY_BLOCK,
    DETAIL_ACTION,
    DETAIL_BLOCK,
    REASON_VIEW,
)
from bot.resume import Resumer
from bot.store import AnswerStore
from grounding.answer import Answer
from grounding.deadline import Clock
from retrieval.config import Config
from retrieval.scopes import Scope
from tests.bot import payloads
from tests.bot.conftest import TEAM
from tests.bot.fake_slack import Call, FakeSlack
from tests.bot.harness import (
    ASKER,
    GENERAL,
    RunningApp,
    fake_slack,
    mention,
    running_app,
    with_channels,
)

Scenario = Callable[[FakeSlack, RunningApp], Awaitable[None]]


def run(
    config: Config, answerer: Answerer, store: AnswerStore, scenario: Scenario,
    *, resumer: Resumer | None = None, clock: Clock | None = None,
) -> None:  # fmt: skip
    """`scenario` against the app (with `resumer`, when the test sweeps; `clock`, to time its
    waits on Slack) and the fake Slack."""

    async def main() -> None:
        async with (
            fake_slack() as slack,
            running_app(
                with_channels(slack), config, answerer, store, resumer=resumer, clock=clock
            ) as app,
        ):
            await scenario(slack, app)

    asyncio.run(main())


def reply_text(call: Call) -> str:
    return f"{call.params.get('text', '')}\n{json.dumps(call.params.get('blocks', []))}"


def ask(
    slack: FakeSlack, text: str, channel: str, ts: str, *, thread_ts: str | None = None,
    team: str = TEAM, ext_shared: bool = False,
) -> dict[str, Any]:  # fmt: skip
    """A mention of docbot asking `text`, with an event id derived from `ts`."""
    event_id = f"Ev{ts.replace('.', '')}"
    return mention(text, channel=channel, ts=ts, event_id=event_id, bot_user_id=slack.bot_user_id,
                   thread_ts=thread_ts, team=team, ext_shared=ext_shared)  # fmt: skip


def as_channel_message(body: dict[str, Any], event_id: str) -> dict[str, Any]:
    """The mention `body` delivered as a `message` in the channel, as Slack does too when the app
    subscribes to `message.channels`: same message, another event id."""
    message = copy.deepcopy(body)
    message["event_id"] = event_id
    message["event"].update(type="message", channel_type="channel")
    return message


class RecordingAnswerer:
    """Passes through to the real pipeline and records (question, context) of every call."""

    def __init__(self, inner: Answerer) -> None:
        self.inner = inner
        self.calls: list[tuple[str, tuple[str, ...]]] = []

    async def answer(
        self, question: str, scope: Scope, *, context: Sequence[str] = (),
        user_id: str | None = None,
    ) -> Answer:  # fmt: skip
        self.calls.append((question, tuple(context)))
        return await self.inner.answer(question, scope, context=context, user_id=user_id)


class SlowAnswerer:
    """The real pipeline, after `seconds` of thinking, or once `release` is set (then `seconds`
    bounds the wait); `started` is set when a question comes."""

    def __init__(
        self, inner: Answerer, seconds: float, release: asyncio.Event | None = None
    ) -> None:
        self.inner = inner
        self.seconds = seconds
        self.release = release
        self.started = asyncio.Event()

    async def answer(
        self, question: str, scope: Scope, *, context: Sequence[str] = (),
        user_id: str | None = None,
    ) -> Answer:  # fmt: skip
        self.started.set()
        if self.release is None:
            await asyncio.sleep(self.seconds)
        else:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.release.wait(), self.seconds)
        return await self.inner.answer(question, scope, context=context, user_id=user_id)


class LogSignal(logging.Handler):
    """Sets `event` when a record on `logger` contains `text`: waiting on the app's own word."""

    def __init__(self, logger: str, text: str) -> None:
        super().__init__(logging.DEBUG)
        self.logger = logging.getLogger(logger)
        self.text = text
        self.event = asyncio.Event()

    def emit(self, record: logging.LogRecord) -> None:
        if self.text in record.getMessage():
            self.event.set()

    def __enter__(self) -> LogSignal:
        self._level = self.logger.level
        self.logger.setLevel(logging.DEBUG)
        self.logger.addHandler(self)
        return self

    def __exit__(self, *exc: object) -> None:
        self.logger.removeHandler(self)
        self.logger.setLevel(self._level)


async def acked_and_logged(app: RunningApp, body: dict[str, Any], text: str) -> None:
    """Send `body` to `app`, which acknowledges it (200: Slack will not deliver it again), and
    wait until the app logs a line on docbot.slack containing `text`."""
    with LogSignal("docbot.slack", text) as logged:
        status, _ = await app.send(body)
        assert status == 200
        await asyncio.wait_for(logged.event.wait(), 10)


class ExplodingAnswerer:
    async def answer(
        self, question: str, scope: Scope, *, context: Sequence[str] = (),
        user_id: str | None = None,
    ) -> Answer:  # fmt: skip
        raise RuntimeError("the index file vanished")


async def stored_reply(slack: FakeSlack, store: AnswerStore) -> str:
    """The ts of docbot's first reply, once its answer is found by it: the answer is stored
    before the post but named as the reply's just after the post returns, and a reaction sent
    before that would find no answer (no person is that quick, a test is)."""
    reply_ts = posted_ts((await slack.wait_for("chat.postMessage"))[0])
    await until(lambda: store.find_answer(TEAM, GENERAL, reply_ts) is not None)
    return reply_ts


async def wait_for_replies(slack: FakeSlack, count: int = 1, timeout: float = 10.0) -> list[Call]:
    """docbot's replies, oldest first, once there are `count`: each a chat.postMessage or, for
    an answer streamed from a model (bot/streaming.py), the chat.stopStream that ended it (both
    answer with the reply's ts, for posted_ts)."""

    def sent() -> list[Call]:
        return [c for c in slack.calls if c.method in ("chat.postMessage", "chat.stopStream")
                and c.response.get("ok")]  # fmt: skip

    await until(lambda: len(sent()) >= count, timeout)
    return sent()


def reason_submission(metadata: str, category: str | None, detail: str | None) -> dict[str, Any]:
    """The asker sending the thumbs-down "what was wrong?" modal whose private_metadata is
    `metadata`: `category` chosen (None: nothing chosen) and `detail` typed (None: left empty)."""
    option = None
    if category is not None:
        option = {"text": {"type": "plain_text", "text": category}, "value": category}
    values = {
        CATEGORY_BLOCK: {CATEGORY_ACTION: {"type": "radio_buttons", "selected_option": option}},
        DETAIL_BLOCK: {DETAIL_ACTION: {"type": "plain_text_input", "value": detail}},
    }
    return payloads.view_submission(
        REASON_VIEW, values, team=TEAM, user=ASKER, private_metadata=metadata
    )


async def posted_unheard(
    slack: FakeSlack, app: RunningApp, question_ts: str
) -> tuple[asyncio.Event, Call]:
    """Ask `app` how to roll back a deploy, with Slack's answer to the reply's post held: the
    reply is in the thread and its run has not heard back, so its staged answer is not yet
    marked the reply's. The event lets the answer through; the call is the post."""
    gate = slack.hold("chat.postMessage", after=True)
    await app.send(ask(slack, "how do I roll back a deploy?", GENERAL, question_ts))
    (post,) = await slack.wait_for("chat.postMessage")
    return gate, post


def posted_ts(post: Call) -> str:
    ts = post.response.get("ts")
    assert isinstance(ts, str), post.response
    return ts


async def until(condition: Callable[[], bool], timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "condition not met in time"
        await asyncio.sleep(0.02)
