"""The "what was wrong?" form on a store slower than the time docbot gives it before the ack
(bot/marks.py, ACK_BUDGET_SECONDS): Slack keeps the form open, saying the reason is not saved yet,
rather than closing it on a reason still being written, which a process stopped before the write
ends would lose (Slack never delivers a submission again). Sent again, it is stored once: by the
write that was slow or by the one sent again, on any replica. Both store backends."""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Any, cast

from bot.app import Answerer
from bot.marks import ACK_BUDGET_SECONDS
from bot.metrics import Metrics
from bot.render.feedback import CATEGORY_BLOCK, FEEDBACK_ACTION, WRONG, reason_not_saved_yet
from bot.store import AnswerStore
from retrieval.config import Config
from tests.bot import payloads
from tests.bot.conftest import TEAM
from tests.bot.e2e import ask, reason_submission, stored_reply, until
from tests.bot.harness import ASKER, GENERAL, fake_slack, running_app, with_channels
from tests.bot.store.conftest import Backend
from tests.bot.store.conftest import FakeClock as StoreClock
from tests.grounding.fake_clock import FakeClock

REASON = "step 3 is gone"


class SlowReasons:
    """The real store, with each add_reason held until `release` is set (a store slower than
    the ack's budget); everything else passes straight through."""

    def __init__(self, inner: AnswerStore) -> None:
        self.inner = inner
        self.started = threading.Event()
        self.release = threading.Event()

    def add_reason(self, *args: Any, **kwargs: Any) -> Any:
        self.started.set()
        self.release.wait(30)
        return self.inner.add_reason(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def _reasons(store: AnswerStore) -> list[str]:
    return [r.text for entry in store.feedback_entries(wrong_only=True) for r in entry.reasons]


def test_app_a_reason_the_store_is_too_slow_for_keeps_the_form_open_and_is_stored_once(
    indexed: tuple[Config, Answerer], backend: Backend, clock: StoreClock
) -> None:
    config, answerer = indexed
    store = backend.open(clock)
    slow = SlowReasons(store)
    waits = FakeClock()
    metrics = Metrics()

    async def main() -> None:
        async with fake_slack() as slack:
            with_channels(slack)
            async with (
                running_app(slack, config, answerer, cast(AnswerStore, slow), clock=waits,
                            metrics=metrics) as first,
                running_app(slack, config, answerer, store) as other,
            ):  # fmt: skip
                await first.send(ask(slack, "how do I roll back a deploy?", GENERAL, "83.000100"))
                reply_ts = await stored_reply(slack, store)
                await first.settle()
                press = payloads.block_actions(
                    FEEDBACK_ACTION, WRONG, team=TEAM, channel=GENERAL, user=ASKER,
                    message_ts=reply_ts, thread_ts="83.000100",
                )  # fmt: skip
                assert (await first.interact(press))[0] == 200
                view = (await slack.wait_for("views.open"))[0].params["view"]
                submission = reason_submission(view["private_metadata"], "outdated", REASON)
                sent = asyncio.create_task(first.interact(submission))
                await until(slow.started.is_set)
                waits.advance(ACK_BUDGET_SECONDS)  # the store has not answered in the budget
                status, body = await sent
                assert status == 200
                kept = json.loads(body)
                assert kept["response_action"] == "errors"  # the form stays open
                assert kept["errors"] == {CATEGORY_BLOCK: reason_not_saved_yet()}
                assert _reasons(store) == []
                # `first` stops here (its write never ends); sent again, to another replica:
                status, body = await other.interact(submission)
                assert status == 200 and not body  # closed: stored
                assert _reasons(store) == [REASON]
                slow.release.set()  # had it lived, its write ends too: the same form, once
                await first.settle()
                await other.settle()
        assert _reasons(store) == [REASON]
        late = {"kind": "reason"}
        assert metrics.registry.get_sample_value("docbot_marks_late_total", late) == 1

    asyncio.run(main())
