"""`docbot serve` closes the answer pipeline a reload replaces (its model client's connections),
once the answers still using it are done: no connection pool leaks per reload. The real Bolt app,
the real pipeline and openai client against the fake model server, `docbot index` run while it
serves."""

from __future__ import annotations

import asyncio
from pathlib import Path

import openai

from bot.live import Reload
from bot.runtime import make_pipeline
from bot.store import SQLiteAnswerStore
from grounding.generators.openai_gen import OpenAIGenerator, make_openai_client
from grounding.pipeline import AnswerPipeline
from retrieval.config import Config
from retrieval.index import Index
from tests.bot import test_live
from tests.bot.e2e import until
from tests.bot.harness import GENERAL, fake_slack, running_app
from tests.bot.test_e2e_streaming import CLAIMS, QUESTION
from tests.bot.test_live import ask, reindex
from tests.grounding.fake_openai import FakeOpenAI, answer, loopback_http_client

served = test_live.served  # the handbook copy and its docbot.yml, indexed (a fixture)


def test_live_a_reloaded_pipeline_is_closed_once_its_answers_are_done(
    served: tuple[Path, Config], store: SQLiteAnswerStore
) -> None:
    path, config = served
    clients: list[openai.AsyncOpenAI] = []

    async def main() -> None:
        async with FakeOpenAI() as server, fake_slack() as slack:
            server.always("responses", answer(CLAIMS))

            def load_pipeline(config: Config) -> AnswerPipeline:
                client = make_openai_client("sk-test", server.base_url,
                                            http_client=loopback_http_client())  # fmt: skip
                clients.append(client)
                return make_pipeline(config, Index.load(config), OpenAIGenerator(client, "gpt"))

            slack.set_channel(GENERAL, is_channel=True, name="general")
            reload = Reload(path, load_pipeline)
            first = load_pipeline(config)
            async with running_app(slack, config, first, store, reload=reload) as app:
                gate = slack.hold("chat.stopStream")  # the first answer stays in flight
                await app.send(ask(slack, QUESTION, "3.000100"))
                await slack.wait_for("chat.stopStream")
                reindex(path)
                await app.send(ask(slack, QUESTION, "3.000200"))  # answered by a new pipeline
                await slack.wait_for("chat.stopStream", 2, timeout=10)
                assert len(clients) == 2 and len(server.requests) == 2
                assert not clients[0].is_closed()  # the first answer still holds it
                gate.set()
                await app.settle()
                await until(clients[0].is_closed)
                assert not clients[1].is_closed()  # the one serving now
            await clients[1].close()

    asyncio.run(main())
