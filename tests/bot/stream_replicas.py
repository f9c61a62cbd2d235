"""Two replicas on one store streaming answers from the model: the one a crash test kills
mid-answer and the one that resumes its question (tests/bot/test_e2e_stream_*_crash.py). Both
serve the real pipeline, whose real openai client talks to the fake model server streaming
test_e2e_streaming's CLAIMS, paced so a test can stop the killed run between its calls."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

from bot.resume import Resumer
from bot.runtime import make_pipeline
from bot.store import AnswerStore
from grounding.generators.openai_gen import OpenAIGenerator, make_openai_client
from retrieval.config import Config
from retrieval.index import Index
from tests.bot.fake_slack import FakeSlack
from tests.bot.harness import RunningApp, two_replicas
from tests.bot.test_e2e_streaming import CLAIMS
from tests.grounding.fake_openai import FakeOpenAI, answer, loopback_http_client, paced


@dataclass(frozen=True, slots=True)
class Replicas:
    server: FakeOpenAI
    slack: FakeSlack
    killed: RunningApp  # the replica a test stops mid-answer
    next_app: RunningApp  # the one taking its question over (it holds the resumer)


@asynccontextmanager
async def stream_replicas(
    config: Config, store: AnswerStore, resumer: Resumer
) -> AsyncIterator[Replicas]:
    async with FakeOpenAI() as server:
        server.always("responses", paced(0.05, answer(CLAIMS)))
        model = make_openai_client("sk-test", server.base_url,
                                   http_client=loopback_http_client())  # fmt: skip
        try:
            pipeline = make_pipeline(config, Index.load(config), OpenAIGenerator(model, "gpt"))
            async with two_replicas(config, pipeline, store, resumer=resumer) as replicas:
                yield Replicas(server, *replicas)
        finally:
            await model.close()
