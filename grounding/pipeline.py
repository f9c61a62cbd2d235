"""The answer pipeline: question and scope in, a verified Answer out.

Retrieve inside the scope, pack, generate (one regeneration for unknown evidence ids), verify.
Logs carry ids, statuses and timings only: never document text, claims or the question.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import replace

from grounding.answer import Answer, AnswerStatus, Omitted, Retrieved, Usage
from grounding.evidence import EvidencePacket, PackPolicy, TokenCounter, pack
from grounding.generators.base import (
    Generation,
    GenerationError,
    GenerationRequest,
    Generator,
)
from grounding.prompt import build_prompt, correction_note
from grounding.retriever import Retriever
from grounding.schema import GroundedResponse
from grounding.verify import Verification, unknown_citations, verify
from retrieval.chunks import Chunk, Hit
from retrieval.query import check_question
from retrieval.scopes import Scope

# Earlier questions of a thread help retrieval ("and for staging?"); more than a few dilute it.
CONTEXT_QUESTIONS = 3


class AnswerPipeline:
    def __init__(
        self,
        retriever: Retriever,
        generator: Generator,
        counter: TokenCounter,
        policy: PackPolicy,
        url_for: Callable[[Chunk], str | None],
        k: int = 12,
        logger: logging.Logger | None = None,
    ) -> None:
        self._retriever = retriever
        self._generator = generator
        self._counter = counter
        self._policy = policy
        self._url_for = url_for
        self._k = k
        self._log = logger or logging.getLogger("docbot.pipeline")

    async def answer(
        self,
        question: str,
        scope: Scope,
        *,
        context: Sequence[str] = (),
        user_id: str | None = None,
    ) -> Answer:
        """The verified answer to `question` from what `scope` may read.

        Raises `InputError` for an empty or over-long question; `GenerationError` becomes an
        `error` answer. Nothing unverified is ever returned.
        """
        question = check_question(question)
        if scope.is_empty:
            return self._finish(_refused(question, scope), scope, hits=0)
        timings: dict[str, float] = {}
        started = time.perf_counter()
        hits = await asyncio.to_thread(
            self._retriever.search, _query(question, context), scope, self._k
        )
        hits = self._inside(hits, scope)
        timings["retrieve"] = _ms_since(started)
        started = time.perf_counter()
        packet = pack(
            question,
            scope,
            self._retriever.generation,
            hits,
            self._policy,
            self._counter,
            self._retriever.adjacent,
        )
        timings["pack"] = _ms_since(started)
        base = _base_answer(question, scope, hits, packet, self._generator.name, timings)
        if not packet.items:
            return self._finish(_nothing_found(base, packet), scope, hits=len(hits))
        return self._finish(await self._generate(base, packet, user_id), scope, hits=len(hits))

    async def _generate(self, base: Answer, packet: EvidencePacket, user_id: str | None) -> Answer:
        started = time.perf_counter()
        request = GenerationRequest(packet, build_prompt(packet), user_id=user_id)
        try:
            first = await self._generator.generate(request)
        except GenerationError as exc:
            base.timings_ms["generate"] = _ms_since(started)
            return _failed(base, exc)
        response, usage = await self._regenerate_if_needed(request, first)
        base.timings_ms["generate"] = _ms_since(started)
        started = time.perf_counter()
        verification = verify(response, packet, self._url_for)
        base.timings_ms["verify"] = _ms_since(started)
        return _verified(replace(base, usage=usage), verification)

    async def _regenerate_if_needed(
        self, request: GenerationRequest, first: Generation
    ) -> tuple[GroundedResponse, Usage]:
        """Regenerate once if the response cites ids outside the packet; verify drops any left."""
        unknown = unknown_citations(first.response, request.packet)
        if not unknown:
            return first.response, first.usage
        self._log.info("regenerating: %d unknown evidence ids", len(unknown))
        note = correction_note(unknown, request.packet.labels)
        try:
            second = await self._generator.generate(replace(request, correction=note))
        except GenerationError as exc:
            # The first response is still verified (its offending claims dropped): better than
            # nothing, and never unchecked.
            self._log.warning("regeneration failed (%s); verifying the first response", exc.kind)
            return first.response, first.usage
        return second.response, _sum(first.usage, second.usage)

    def _inside(self, hits: Sequence[Hit], scope: Scope) -> tuple[Hit, ...]:
        """Defence in depth: a retriever bug must not put another scope's chunk in a prompt."""
        allowed = set(scope.collections)
        kept = tuple(hit for hit in hits if hit.chunk.collection in allowed)
        if len(kept) != len(hits):
            leaked = [h.chunk.chunk_id for h in hits if h.chunk.collection not in allowed]
            self._log.error(
                "retriever returned %d chunks outside the scope: %s", len(leaked), leaked
            )
        return kept

    def _finish(self, answer: Answer, scope: Scope, *, hits: int) -> Answer:
        self._log.info(
            "answer status=%s team=%s channel=%s kind=%s collections=%s hits=%d sources=%s "
            "omitted=%d dropped=%s generator=%s timings_ms=%s",
            answer.status.value,
            scope.team_id,
            scope.channel_id,
            scope.kind.value,
            ",".join(scope.collections),
            hits,
            ",".join(source.chunk_id for source in answer.sources),
            len(answer.omitted),
            ",".join(claim.reason for claim in answer.dropped_claims),
            answer.generator,
            {name: round(ms, 1) for name, ms in answer.timings_ms.items()},
        )
        return answer


def _query(question: str, context: Sequence[str]) -> str:
    earlier = [text.strip() for text in context if text.strip()][-CONTEXT_QUESTIONS:]
    return "\n".join([*earlier, question])


def _base_answer(
    question: str,
    scope: Scope,
    hits: Sequence[Hit],
    packet: EvidencePacket,
    generator: str,
    timings: dict[str, float],
) -> Answer:
    return Answer(
        status=AnswerStatus.NOT_FOUND,
        question=question,
        scope=scope,
        retrieved=tuple(
            Retrieved(h.chunk.chunk_id, h.chunk.path, h.score, h.chunk.collection) for h in hits
        ),
        omitted=tuple(Omitted(o.chunk_id, o.reason, o.detail) for o in packet.omitted),
        generator=generator,
        timings_ms=timings,
    )


def _refused(question: str, scope: Scope) -> Answer:
    return Answer(
        status=AnswerStatus.REFUSED,
        question=question,
        scope=scope,
        message=(
            "This conversation may read no collections, so there is no documentation I can "
            "search here. Ask in a channel that has access, or ask an admin to add this "
            "channel to a collection in docbot.yml."
        ),
    )


def _nothing_found(base: Answer, packet: EvidencePacket) -> Answer:
    searched = ", ".join(packet.scope.collections)
    return replace(
        base,
        status=AnswerStatus.NOT_FOUND,
        message=f"I found nothing that answers this in the documentation searched ({searched}).",
    )


def _failed(base: Answer, exc: GenerationError) -> Answer:
    return replace(
        base,
        status=AnswerStatus.ERROR,
        message=f"I could not produce an answer this time ({exc.kind}): {exc}",
    )


def _verified(base: Answer, verification: Verification) -> Answer:
    return replace(
        base,
        status=verification.status,
        claims=verification.claims,
        sources=verification.sources,
        message=verification.message,
        dropped_claims=verification.dropped,
    )


def _sum(a: Usage, b: Usage) -> Usage:
    return Usage(a.input_tokens + b.input_tokens, a.output_tokens + b.output_tokens)


def _ms_since(started: float) -> float:
    return (time.perf_counter() - started) * 1000.0
