"""A thread follow-up in Slack reaches the query rewrite with its thread's earlier question.

The app, generator and pipeline as `docbot serve` builds them from docbot.yml (make_generator,
make_pipeline), with the model on the fake OpenAI server: the first question, English and
standalone, is not rewritten; the follow-up in its thread is, and the rewrite call carries the
earlier question so the model can make it standalone.
"""

from __future__ import annotations

import asyncio
import contextlib

from pydantic import SecretStr

from bot.app import Answerer
from bot.runtime import make_generator, make_pipeline
from bot.settings import Settings
from bot.store import SQLiteAnswerStore
from grounding.generators.response_formats import FormatMemory
from retrieval.config import Config
from retrieval.index import Index
from tests.bot.conftest import TEAM
from tests.bot.e2e import ask, posted_ts, until, wait_for_replies
from tests.bot.harness import GENERAL, fake_slack, running_app, with_channels
from tests.grounding.fake_openai import FakeOpenAI, answer
from tests.grounding.openai_harness import user_texts
from tests.grounding.rewrite_harness import is_rewrite, queries

FIRST = "how do I roll back a deploy?"
FOLLOW_UP = "and is it safe?"
ROLLBACK = "Run `make rollback ENV=production` to return to the previous release."


def test_app_thread_follow_up_is_rewritten_with_the_earlier_question(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    config, _ = indexed
    config = config.model_copy(
        update={"answer": config.answer.model_copy(update={"generator": "openai"})}
    )

    async def main() -> FakeOpenAI:
        async with FakeOpenAI() as server:
            server.script(
                "responses",
                answer([(ROLLBACK, ["E1"])]),  # the first question: no rewrite
                queries("is rolling back a deploy safe"),  # the follow-up's rewrite
                answer(status="insufficient_context", message="The docs do not say."),
            )
            settings = Settings(
                openai_api_key=SecretStr("sk-test"), openai_base_url=server.base_url
            )
            generator = make_generator(config.answer, settings, FormatMemory())
            pipeline = make_pipeline(config, Index.load(config), generator)
            async with (
                contextlib.aclosing(pipeline),
                fake_slack() as slack,
                running_app(with_channels(slack), config, pipeline, store) as app,
            ):
                await app.send(ask(slack, FIRST, GENERAL, "51.000100"))
                await wait_for_replies(slack)  # streamed: a model answers it
                await app.send(ask(slack, FOLLOW_UP, GENERAL, "51.000200", thread_ts="51.000100"))
                (_, second) = await wait_for_replies(slack, 2)
                await until(lambda: store.find_answer(TEAM, GENERAL, posted_ts(second)) is not None)
                record = store.find_answer(TEAM, GENERAL, posted_ts(second))
                assert record is not None
                assert record.answer.question == FOLLOW_UP
                assert record.answer.timings_ms["rewrite"] > 0
            return server

    server = asyncio.run(main())
    assert [is_rewrite(r) for r in server.requests] == [False, True, False]
    rewrite_turn = user_texts("responses", server.requests[1].body)[0]
    assert FIRST in rewrite_turn and FOLLOW_UP in rewrite_turn
