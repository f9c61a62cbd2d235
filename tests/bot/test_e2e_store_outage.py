"""The PostgreSQL store lost mid-question, on a real server stopped and started again: questions
are still answered, their claims stay open and are settled once the server is back, without a
second reply, nothing crashes, and the log says it once when it begins and once when it ends."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence

import pytest

from bot.app import Answerer
from bot.resume import Resumer
from bot.store import LEASE_SECONDS, Claim, MentionKey, PostgresAnswerStore
from grounding.answer import Answer
from retrieval.config import Config
from retrieval.scopes import Scope
from tests.bot.conftest import TEAM
from tests.bot.e2e import ask, reply_text
from tests.bot.harness import GENERAL, fake_slack, running_app, with_channels
from tests.bot.store.conftest import FakeClock
from tests.postgres_server import PostgresServer

QUESTION = "how do I roll back a deploy?"


class ServerStoppingAnswerer:
    """The real pipeline; the first question stops the database server while it is answered."""

    def __init__(self, inner: Answerer, server: PostgresServer) -> None:
        self.inner = inner
        self.server = server
        self.stopped = False

    async def answer(
        self, question: str, scope: Scope, *, context: Sequence[str] = (),
        user_id: str | None = None,
    ) -> Answer:  # fmt: skip
        if not self.stopped:
            self.stopped = True
            await asyncio.to_thread(self.server.stop)
        return await self.inner.answer(question, scope, context=context, user_id=user_id)


def test_store_outage_mid_question_answers_once_and_recovers(
    indexed: tuple[Config, Answerer],
    private_postgres: PostgresServer,
    caplog: pytest.LogCaptureFixture,
) -> None:
    config, inner = indexed
    caplog.set_level(logging.INFO)
    clock = FakeClock()
    url = private_postgres.create_database("docbot")
    store = PostgresAnswerStore(url, clock=clock, timeout_seconds=2)
    answerer = ServerStoppingAnswerer(inner, private_postgres)
    resumer = Resumer()

    async def main() -> tuple[dict[str, str], int]:
        async with fake_slack() as slack, running_app(
            with_channels(slack), config, answerer, store, resumer=resumer
        ) as app:  # fmt: skip
            await app.send(ask(slack, QUESTION, GENERAL, "70.000100"))  # lost mid-question
            await app.settle()
            # Asked while down: no claim can be made, so the delivery is refused for Slack to
            # deliver again (replicas would otherwise each answer it) ...
            refused = await app.send(ask(slack, QUESTION, GENERAL, "71.000100"))
            await app.settle()
            # ... except on Slack's last retry, answered unclaimed rather than not at all.
            await app.send(ask(slack, QUESTION, GENERAL, "73.000100"), retry=3)
            await app.settle()
            await asyncio.to_thread(private_postgres.start)
            await app.send(ask(slack, QUESTION, GENERAL, "71.000100"), retry=1)  # Slack again
            await app.send(ask(slack, QUESTION, GENERAL, "72.000100"))  # back
            await app.settle()
            assert refused[0] == 503
            # The first question's claim stayed open; once its lease lapses, the sweep takes it
            # over, finds the reply in the thread, and settles it instead of answering again.
            clock.now += LEASE_SECONDS + 1
            resumed = await resumer.sweep()
            await app.settle()
            assert len(slack.posted()) == 4
            return {c.params["thread_ts"]: reply_text(c) for c in slack.posted()}, resumed

    replies, resumed = asyncio.run(main())
    try:
        # One reply each (a dict would hide a second one: count the posts too).
        assert sorted(replies) == ["70.000100", "71.000100", "72.000100", "73.000100"]
        assert not any("something went wrong" in text for text in replies.values())
        assert resumed == 1
        assert store.claim(MentionKey(TEAM, GENERAL, "70.000100"), "9:other") is Claim.DONE
        assert store.claim(MentionKey(TEAM, GENERAL, "72.000100"), "9:other") is Claim.DONE
    finally:
        store.close()
    lost = [r for r in caplog.records if "cannot be reached" in r.getMessage()]
    back = [r for r in caplog.records if "reachable again" in r.getMessage()]
    assert len(lost) == 1 and len(back) == 1, caplog.text
    # docbot's own log: no error, no traceback per event (other libraries' noise aside).
    ours = [r for r in caplog.records if r.name.startswith("docbot")]
    assert [r for r in ours if r.levelno >= logging.ERROR or r.exc_info] == [], caplog.text
