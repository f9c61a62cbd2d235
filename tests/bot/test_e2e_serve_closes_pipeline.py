"""`docbot serve` closes the answer pipeline it serves (its model client's connections) when it
shuts down, once the last answer in progress has ended: not before (that answer still asks the
model and posts), and not never (no connection outlives the server). run_serve over signed HTTP,
the real pipeline and openai client against the fake model server."""

from __future__ import annotations

import asyncio
import contextlib

import aiohttp

from bot.app import Answerer
from bot.runtime import make_pipeline
from bot.serve import run_serve
from bot.store import SQLiteAnswerStore
from grounding.generators.openai_gen import OpenAIGenerator, make_openai_client
from retrieval.config import Config
from retrieval.index import Index
from tests.bot.e2e import LogSignal, ask, until
from tests.bot.harness import GENERAL, fake_slack, post_event, settings_for, with_channels
from tests.bot.test_e2e_streaming import CLAIMS, QUESTION
from tests.grounding.fake_openai import FakeOpenAI, answer, loopback_http_client
from tests.ports import free_port, listening


def test_serve_closes_its_pipeline_after_the_last_answer_at_shutdown(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    config, _ = indexed
    port = free_port()

    async def main() -> None:
        async with FakeOpenAI() as server, fake_slack() as slack:
            server.always("responses", answer(CLAIMS))
            model = make_openai_client("sk-test", server.base_url,
                                       http_client=loopback_http_client())  # fmt: skip
            pipeline = make_pipeline(config, Index.load(config), OpenAIGenerator(model, "gpt"))
            with LogSignal("docbot.serve", "answer(s) in progress") as draining:
                serving = asyncio.create_task(run_serve(
                    config, settings_for(with_channels(slack)), pipeline, store, port=port,
                    host="127.0.0.1",
                ))  # fmt: skip
                await until(lambda: listening(port))
                gate = slack.hold("chat.stopStream")  # the answer stays in progress
                async with aiohttp.ClientSession() as session:
                    url = f"http://127.0.0.1:{port}/slack/events"
                    await post_event(session, url, ask(slack, QUESTION, GENERAL, "24.000100"))
                await slack.wait_for("chat.stopStream", timeout=10)
                serving.cancel()  # Ctrl-C with the answer in progress
                await draining.event.wait()
                assert not model.is_closed()  # the answer in progress still holds it
                gate.set()
                with contextlib.suppress(asyncio.CancelledError):
                    await serving
            (stop,) = slack.calls_to("chat.stopStream")
            assert stop.response["ok"]  # the answer ended first
            assert model.is_closed()

    asyncio.run(main())
