"""docbot's answer pipeline as `docbot serve` builds it for a model, its real openai client
talking to the fake model server on loopback (tests/grounding/fake_openai.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from bot.runtime import make_pipeline
from grounding.generators.openai_gen import OpenAIGenerator, make_openai_client
from grounding.pipeline import AnswerPipeline
from retrieval.config import Config
from retrieval.index import Index
from tests.grounding.fake_openai import FakeOpenAI, loopback_http_client


@asynccontextmanager
async def model_pipeline(
    config: Config, server: FakeOpenAI, model: str = "gpt"
) -> AsyncIterator[AnswerPipeline]:
    """The pipeline over `config`'s index whose generator asks `server` for `model`; its
    client's connections are closed when the block ends."""
    client = make_openai_client("sk-test", server.base_url, http_client=loopback_http_client())
    async with client:
        yield make_pipeline(config, Index.load(config), OpenAIGenerator(client, model))
