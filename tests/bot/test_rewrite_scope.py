"""A query rewrite cannot reach another channel's collection: the real index, the real rewriter.

The fake model rewrites a general channel's question into the words of the private payments
docs. The same rewrite asked from the payments channel finds them, so the words do match; from
the general channel every search stays in its scope and nothing of payments is retrieved or
sent to the model.
"""

from __future__ import annotations

import asyncio

from bot.listeners import Answerer
from bot.runtime import make_pipeline
from grounding.answer import Answer
from grounding.generators.openai_gen import OpenAIGenerator, make_openai_client
from grounding.generators.response_formats import FormatMemory
from retrieval.config import Config
from retrieval.index import Index
from retrieval.scopes import ConversationKind, resolve_scope
from tests.bot.conftest import CANARY, PAYMENTS_CHANNEL, TEAM
from tests.grounding.fake_openai import FakeOpenAI, answer, loopback_http_client
from tests.grounding.rewrite_harness import is_rewrite, queries

QUESTION = "¿cómo hago un rollback del despliegue?"  # not English: the rewrite runs
INTO_PAYMENTS = queries("rotate the payments API key vaultctl", "roll back a deploy")


def _ask(config: Config, channel: str) -> tuple[Answer, FakeOpenAI]:
    async def run() -> tuple[Answer, FakeOpenAI]:
        async with FakeOpenAI() as fake:
            fake.script("chat", INTO_PAYMENTS, answer(status="insufficient_context"))
            client = make_openai_client(
                "sk-test", fake.base_url, http_client=loopback_http_client()
            )
            generator = OpenAIGenerator(client, "gpt-test", api="chat", memory=FormatMemory())
            # The composition root's own wiring: make_pipeline gives the model a rewriter.
            pipeline = make_pipeline(config, Index.load(config), generator)
            scope = resolve_scope(config, TEAM, channel, ConversationKind.CHANNEL)
            try:
                return await pipeline.answer(QUESTION, scope), fake
            finally:
                await client.close()

    return asyncio.run(run())


def test_rewrite_scope_a_rewrite_never_reaches_a_private_collection(
    indexed: tuple[Config, Answerer],
) -> None:
    config, _ = indexed
    general, fake = _ask(config, "C0GENERAL")
    assert [is_rewrite(r) for r in fake.requests] == [True, False]
    assert general.retrieved and {r.collection for r in general.retrieved} == {"handbook"}
    assert CANARY not in str(fake.requests[1].body)
    assert "vaultctl" not in str(fake.requests[1].body)


def test_rewrite_scope_the_same_rewrite_finds_payments_where_it_may(
    indexed: tuple[Config, Answerer],
) -> None:
    config, _ = indexed
    payments, _ = _ask(config, PAYMENTS_CHANNEL)
    assert "payments" in {r.collection for r in payments.retrieved}
