"""The store failing around a reply's post (bot/questions._reply): when the answer cannot be
staged, the reply is posted all the same and the answer stored under it afterwards; when it
cannot be marked posted, the claim stays open, and the run resuming the question finds the reply
in the thread, posts nothing again and marks the staged answer as the reply's. The real app on
the fake Slack, SQLite."""

from __future__ import annotations

import asyncio
from typing import cast

from bot.app import Answerer
from bot.resume import Resumer
from bot.store import AnswerStore, Claim, MentionKey, SQLiteAnswerStore
from retrieval.config import Config
from tests.bot.conftest import TEAM
from tests.bot.e2e import ask, posted_ts, run, stored_reply
from tests.bot.fake_slack import FakeSlack
from tests.bot.harness import GENERAL, RunningApp, two_replicas
from tests.bot.test_e2e_app_failures import FailingStore

QUESTION = "how do I roll back a deploy?"


def test_app_an_answer_that_cannot_be_staged_is_stored_under_its_reply(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    config, answerer = indexed
    broken = cast(AnswerStore, FailingStore(store, "stage_answer"))

    async def scenario(slack: FakeSlack, app: RunningApp) -> None:
        await app.send(ask(slack, QUESTION, GENERAL, "72.000100"))
        reply_ts = await stored_reply(slack, store)
        await app.settle()
        record = store.find_answer(TEAM, GENERAL, reply_ts)
        assert record is not None and record.question_ts == "72.000100"
        assert store.claim(MentionKey(TEAM, GENERAL, "72.000100"), "other:1") is Claim.DONE

    run(config, answerer, broken, scenario)


def test_app_a_reply_whose_answer_cannot_be_marked_is_marked_by_the_run_resuming_it(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    config, answerer = indexed
    broken = cast(AnswerStore, FailingStore(store, "mark_posted"))
    resumer = Resumer()

    async def main() -> None:
        async with two_replicas(config, answerer, broken, store, resumer=resumer) as replicas:
            slack, first, second = replicas
            await first.send(ask(slack, QUESTION, GENERAL, "73.000100"))
            (post,) = await slack.wait_for("chat.postMessage")
            reply_ts = posted_ts(post)
            await first.settle()
            assert store.find_answer(TEAM, GENERAL, reply_ts) is None  # staged, unmarked
            (staged,) = store.thread_questions(TEAM, GENERAL, "73.000100")
            assert await resumer.sweep() == 1  # the claim was left open, not done
            await second.settle()
            record = store.find_answer(TEAM, GENERAL, reply_ts)
            assert record is not None and record.question == staged
            assert len(slack.calls_to("chat.postMessage")) == 1  # not posted again
            key = MentionKey(TEAM, GENERAL, "73.000100")
            assert store.claim(key, "other:1") is Claim.DONE

    asyncio.run(main())
