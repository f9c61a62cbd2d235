"""The real OpenAIGenerator and AnswerPipeline against the fake OpenAI server, for the tests here.

`serve(...)` runs one generation, `ask(...)` one whole answer; both return what the fake recorded.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import replace
from typing import Any, Literal

from grounding.answer import Answer
from grounding.deadline import Clock, Deadline, SystemClock
from grounding.evidence import EvidenceItem, EvidencePacket, PackPolicy
from grounding.generators.base import Generation, GenerationError, GenerationRequest
from grounding.generators.openai_gen import OpenAIGenerator, make_openai_client
from grounding.pipeline import AnswerPipeline
from grounding.prompt import build_prompt
from retrieval.chunks import Chunk, make_chunk_id, text_digest
from retrieval.config import DEADLINE_SECONDS
from retrieval.scopes import ConversationKind, Scope
from tests.grounding.fake_openai import FakeOpenAI, Recorded, Reply, loopback_http_client
from tests.grounding.fakes import FakeRetriever, WordCounter, make_chunk

API = Literal["responses", "chat"]
APIS: tuple[API, ...] = ("responses", "chat")
MODEL = "gpt-5-mini"
USER = "U024BE7LH"
KEY = "sk-test"
TIMEOUT_TEXT = "Timeouts default to five seconds; pass timeout=None to disable them."
QUESTION = "What is the default timeout?"
TIMEOUTS = make_chunk(TIMEOUT_TEXT, collection="httpx", path="advanced/timeouts.md", start_line=12)
CLIENTS = make_chunk(
    "Use httpx.Client(timeout=10.0) to set a client-wide timeout.",
    collection="httpx",
    path="advanced/clients.md",
    start_line=40,
)


def make_packet() -> EvidencePacket:
    scope = Scope("T0123ABC", "C0123ABC", ConversationKind.CHANNEL, ("httpx",))
    texts = [TIMEOUT_TEXT, "Use httpx.Client(timeout=10.0) to set a client-wide timeout."]
    items = []
    for n, text in enumerate(texts, start=1):
        digest = text_digest(text)
        chunk = Chunk(
            chunk_id=make_chunk_id("httpx", "advanced/timeouts.md", digest, 0),
            collection="httpx",
            path="advanced/timeouts.md",
            heading_path=("Timeouts",),
            start_line=10 * n,
            end_line=10 * n + 3,
            text=text,
            digest=digest,
            updated="2026-01-02",
        )
        items.append(EvidenceItem(label=f"E{n}", chunk=chunk, score=5.0 - n))
    return EvidencePacket(
        question=QUESTION,
        scope=scope,
        generation="gen-1",
        policy=PackPolicy(),
        items=tuple(items),
        omitted=(),
        tokens=40,
    )


def make_request(*, correction: str | None = None, user_id: str | None = USER) -> GenerationRequest:
    evidence = make_packet()
    return GenerationRequest(
        evidence, build_prompt(evidence), user_id=user_id, correction=correction
    )


def serve(
    api: API,
    *replies: Reply,
    fallback: Reply | None = None,
    key: str = KEY,
    request: GenerationRequest | None = None,
    deadline_seconds: float | None = None,
    clock: Clock | None = None,
    base_url: str | None = None,
    on_request: Callable[[Recorded], None] | None = None,
    **options: Any,
) -> tuple[Generation | GenerationError, FakeOpenAI]:
    """One `generate` call; `options` go to OpenAIGenerator (timeout_seconds, max_retries, ...).

    With `deadline_seconds`, the request carries a deadline started just before the call.
    """

    async def run() -> tuple[Generation | GenerationError, FakeOpenAI]:
        async with FakeOpenAI(on_request=on_request) as fake:
            fake.script(api, *replies)
            if fallback is not None:
                fake.always(api, fallback)
            client = make_openai_client(
                key, base_url or fake.base_url, http_client=loopback_http_client()
            )
            generator = OpenAIGenerator(client, MODEL, api=api, clock=clock, **options)
            sent = request or make_request()
            if deadline_seconds is not None:
                deadline = Deadline.start(deadline_seconds, clock or SystemClock())
                sent = replace(sent, deadline=deadline)
            try:
                return await generator.generate(sent), fake
            except GenerationError as exc:
                return exc, fake
            finally:
                await client.close()

    return asyncio.run(run())


def ask(
    api: API,
    *replies: Reply,
    fallback: Reply | None = None,
    key: str = KEY,
    logger: logging.Logger | None = None,
    deadline_seconds: float = DEADLINE_SECONDS,
    clock: Clock | None = None,
    on_request: Callable[[Recorded], None] | None = None,
    **options: Any,
) -> tuple[Answer, FakeOpenAI]:
    """One whole answer through the real AnswerPipeline; `options` go to OpenAIGenerator."""

    async def run() -> tuple[Answer, FakeOpenAI]:
        async with FakeOpenAI(on_request=on_request) as fake:
            fake.script(api, *replies)
            if fallback is not None:
                fake.always(api, fallback)
            client = make_openai_client(key, fake.base_url, http_client=loopback_http_client())
            pipeline = AnswerPipeline(
                FakeRetriever([TIMEOUTS, CLIENTS]),
                OpenAIGenerator(client, MODEL, api=api, clock=clock, **options),
                WordCounter(),
                PackPolicy(),
                lambda chunk: f"https://docs.example/{chunk.path}#L{chunk.start_line}",
                logger=logger,
                deadline_seconds=deadline_seconds,
                clock=clock,
            )
            scope = Scope("T1", "C1", ConversationKind.CHANNEL, ("httpx",))
            try:
                return await pipeline.answer(QUESTION, scope, user_id=USER), fake
            finally:
                await client.close()

    return asyncio.run(run())


def user_texts(api: API, body: dict[str, Any]) -> list[str]:
    messages = body["input"] if api == "responses" else body["messages"]
    return [m["content"] for m in messages if m["role"] == "user"]


def error(outcome: Generation | GenerationError) -> GenerationError:
    assert isinstance(outcome, GenerationError), f"expected a GenerationError, got {outcome!r}"
    return outcome


def generation(outcome: Generation | GenerationError) -> Generation:
    assert isinstance(outcome, Generation), f"expected a Generation, got {outcome!r}"
    return outcome
