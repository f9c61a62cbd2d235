"""The real AnswerPipeline with the real OpenAI generator and ModelRewriter on one fake server.

The rewrite is the first request an answer makes, the answer the next, both on the same endpoint.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable, Sequence
from typing import Any

from grounding.answer import Answer
from grounding.deadline import Clock
from grounding.evidence import PackPolicy
from grounding.generators.openai_gen import OpenAIGenerator, make_openai_client
from grounding.generators.response_formats import FormatMemory
from grounding.pipeline import AnswerPipeline
from grounding.retriever import Retriever
from grounding.rewrite import ModelRewriter, RewriteMode
from retrieval.scopes import Scope
from tests.grounding.fake_openai import FakeOpenAI, Recorded, Reply, loopback_http_client, raw_text
from tests.grounding.fakes import WordCounter
from tests.grounding.openai_harness import API, KEY, MODEL, USER


def queries(*texts: str) -> Reply:
    """A model's SearchQueries reply."""
    return raw_text(json.dumps({"queries": list(texts)}))


def is_rewrite(recorded: Recorded) -> bool:
    body = recorded.body
    fmt = body.get("response_format") or (body.get("text") or {}).get("format") or {}
    named = fmt.get("name") or (fmt.get("json_schema") or {}).get("name")
    return named == "search_queries"


def ask_rewritten(
    api: API,
    retriever: Retriever,
    question: str,
    scope: Scope,
    *replies: Reply,
    context: Sequence[str] = (),
    mode: RewriteMode = "auto",
    clock: Clock | None = None,
    on_request: Callable[[Recorded], None] | None = None,
    logger: logging.Logger | None = None,
    rewrite_seconds: float = 10.0,
    **options: Any,
) -> tuple[Answer, FakeOpenAI]:
    """One answer; `options` go to OpenAIGenerator (response_format, max_retries, ...)."""

    async def run() -> tuple[Answer, FakeOpenAI]:
        async with FakeOpenAI(on_request=on_request) as fake:
            fake.script(api, *replies)
            client = make_openai_client(KEY, fake.base_url, http_client=loopback_http_client())
            generator = OpenAIGenerator(
                client, MODEL, api=api, clock=clock, memory=FormatMemory(), **options
            )
            pipeline = AnswerPipeline(
                retriever,
                generator,
                WordCounter(),
                PackPolicy(),
                lambda chunk: f"https://docs.example/{chunk.path}#L{chunk.start_line}",
                logger=logger,
                clock=clock,
                rewriter=ModelRewriter(generator.structured, mode=mode),
                rewrite_seconds=rewrite_seconds,
            )
            try:
                answer = await pipeline.answer(question, scope, context=context, user_id=USER)
                return answer, fake
            finally:
                await client.close()

    return asyncio.run(run())
