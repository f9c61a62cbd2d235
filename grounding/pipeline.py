"""The answer pipeline: question and scope in, a verified Answer out.

Rewrite the question into search queries (with a model, when it may help), retrieve inside the
scope, pack, gate (not_found without generating when nothing retrieved is near the question),
generate (one regeneration for unknown evidence ids or quotes), verify.
Logs carry ids, statuses and timings only: never document text, claims or the question.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace

from grounding.answer import Answer, AnswerStatus, NoAnswer, Omitted, Retrieved, Usage
from grounding.deadline import Clock, Deadline, SystemClock
from grounding.evidence import EvidencePacket, PackPolicy, TokenCounter, pack
from grounding.gate import Gate
from grounding.generators.base import (
    Closable,
    Generation,
    GenerationError,
    GenerationRequest,
    Generator,
    PacketReader,
    StreamingGenerator,
)
from grounding.progress import Checking, Reading, Report, Searching, ignore
from grounding.prompt import build_prompt, correction_note
from grounding.retriever import Retriever, search_all, top_headings
from grounding.rewrite import QueryRewriter, rewrite_or_not
from grounding.schema import GroundedResponse
from grounding.streamed import StreamedClaims
from grounding.untrusted import new_nonce
from grounding.verification import (
    Verification,
    unknown_citations,
    unknown_quotes,
    verify,
)
from retrieval.chunks import Chunk, Hit
from retrieval.config import DEADLINE_SECONDS, REWRITE_SECONDS
from retrieval.query import check_question
from retrieval.scopes import ConversationKind, Scope

# Earlier questions of a thread help retrieval ("and for staging?"); more than a few dilute it.
CONTEXT_QUESTIONS = 3
# Every answer names every stage; a stage that did not run took 0.0 ms.
STAGES = ("rewrite", "retrieve", "pack", "gate", "generate", "verify")

# Why an `error` answer has no claims, by GenerationError kind, as a code: bot/render words it.
# The generator's own message can quote the model server (an HTTP body, part of an API key,
# config advice for admins), so it goes to the log and `Answer.error_detail`, never to the
# conversation.
MODEL_FAILURES: Mapping[str, NoAnswer] = {
    "rate_limited": NoAnswer.MODEL_RATE_LIMITED,
    "timeout": NoAnswer.MODEL_TIMEOUT,
    "unavailable": NoAnswer.MODEL_UNAVAILABLE,
    # Refusals that last until an admin changes the key, the account or docbot.yml.
    "auth": NoAnswer.MODEL_SETUP,
    "rejected": NoAnswer.MODEL_SETUP,
    "quota": NoAnswer.MODEL_SETUP,
    "refusal": NoAnswer.MODEL_REFUSED,
    "incomplete": NoAnswer.MODEL_INCOMPLETE,
    "invalid": NoAnswer.MODEL_INVALID,
}


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
        *,
        deadline_seconds: float = DEADLINE_SECONDS,
        clock: Clock | None = None,
        rewriter: QueryRewriter | None = None,
        rewrite_seconds: float = REWRITE_SECONDS,
        gate: Gate | None = None,
    ) -> None:
        if isinstance(generator, PacketReader):
            # No prompt to fit: the reader is packed the wider packet it asks for, while a
            # model keeps the `answer:` budget (grounding/evidence.py `PacketSize`).
            policy, k = generator.packet_size.widen(policy, k)
        self._retriever = retriever
        self._generator = generator
        self._counter = counter
        self._policy = policy
        self._url_for = url_for
        self._k = k
        self._log = logger or logging.getLogger("docbot.pipeline")
        self._deadline_seconds = deadline_seconds
        self._clock = clock or SystemClock()
        self._rewriter = rewriter
        self._rewrite_seconds = rewrite_seconds
        self._gate = gate

    async def aclose(self) -> None:
        """Close what the generator holds open (a model client's connections); the pipeline
        answers nothing after. `async with contextlib.aclosing(pipeline)` calls it."""
        if isinstance(self._generator, Closable):
            await self._generator.aclose()

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
        return await self.answer_live(question, scope, context=context, user_id=user_id)

    def top_headings(self, scope: Scope, limit: int) -> tuple[str, ...]:
        """What `scope`'s documents are about: their top-level headings (suggested prompts)."""
        return top_headings(self._retriever, scope, limit)

    async def answer_live(
        self,
        question: str,
        scope: Scope,
        *,
        context: Sequence[str] = (),
        user_id: str | None = None,
        report: Report = ignore,
    ) -> Answer:
        """`answer`, telling `report` what it is doing as it goes (grounding/progress.py)."""
        question = check_question(question)
        # From the moment the question arrives: it is the asker's wait that is bounded.
        deadline = Deadline.start(self._deadline_seconds, self._clock)
        if scope.is_empty:
            return self._finish(_refused(question, scope), scope, hits=0)
        report(Searching(scope.collections))
        started = time.perf_counter()
        # Its own share of the deadline, so a slow rewrite leaves the answer time to be made.
        rewrite = await rewrite_or_not(
            self._rewriter,
            question,
            context,
            deadline.within(
                self._rewrite_seconds,
                "the query rewrite's share of the answer's deadline",
                "answer.rewrite_timeout_seconds",
            ),
            self._log,
        )
        rewrite_ms = _ms_since(started)
        started = time.perf_counter()
        queries = (thread_query(question, context), *rewrite.queries)
        hits = await asyncio.to_thread(search_all, self._retriever, queries, scope, self._k)
        hits = self._inside(hits, scope)
        retrieve_ms = _ms_since(started)
        started = time.perf_counter()
        packet = pack(
            question,
            scope,
            self._retriever.generation,
            hits,
            self._policy,
            self._counter,
            self._retriever.adjacent,
            nonce=new_nonce(),  # unpredictable per request: a document cannot forge the fence
        )
        timings = _timings(rewrite=rewrite_ms, retrieve=retrieve_ms, pack=_ms_since(started))
        base = _base_answer(question, scope, hits, packet, self._generator.name, timings)
        base = replace(base, usage=rewrite.usage, rewrites=rewrite.queries)
        if not packet.items:
            return self._finish(_nothing_found(base), scope, hits=len(hits))
        if self._gate is not None:
            started = time.perf_counter()
            verdict = await asyncio.to_thread(self._gate.judge, queries, scope, hits)
            base = replace(_timed(base, "gate", _ms_since(started)), gate=verdict)
            if not verdict.near:
                # Nothing retrieved is near the question: the generator is not called at all.
                return self._finish(_nothing_found(base), scope, hits=len(hits))
        report(Reading(len(packet.items)))
        if report is not ignore and isinstance(self._generator, StreamingGenerator):
            # Someone is watching: verify each claim as the model writes it (grounding/streamed.py).
            answer = await self._generate_streamed(base, packet, user_id, deadline, report)
        else:
            answer = await self._generate(base, packet, user_id, deadline, report)
        return self._finish(answer, scope, hits=len(hits))

    async def _generate_streamed(
        self, base: Answer, packet: EvidencePacket, user_id: str | None, deadline: Deadline,
        report: Report,
    ) -> Answer:  # fmt: skip
        """Like `_generate`, but every claim is checked (and reported) the moment it is complete.

        The regeneration rule is the batch one; a failure after a claim was shown keeps what was
        shown (verified, and never retracted) with the failure in `error_detail`."""
        assert isinstance(self._generator, StreamingGenerator)
        started = time.perf_counter()
        request = GenerationRequest(
            packet, build_prompt(packet), user_id=user_id, deadline=deadline
        )
        claims = StreamedClaims(packet, self._url_for, report)
        usage, last, detail = base.usage, None, ""
        for attempt in (1, 2):
            feed = claims.feed()
            try:
                generation = await self._generator.stream(request, feed)
            except GenerationError as exc:
                if last is None and not claims.claims:
                    return self._failed(_timed(base, "generate", _ms_since(started)), exc)
                self._log.warning(
                    "generation %d failed kind=%s with %d claim(s) shown; keeping them: %s",
                    attempt, exc.kind, len(claims.claims), exc,
                )  # fmt: skip
                detail = f"{exc.kind}: {exc}"
                break
            feed.finish(generation.response)
            usage, last = usage + generation.usage, generation.response
            unknown, misquoted = unknown_citations(last, packet), unknown_quotes(last, packet)
            if attempt == 2 or not (unknown or misquoted):
                break
            self._log.info("regenerating: %d unknown evidence ids, %d unknown quotes "
                           "(streamed)", len(unknown), len(misquoted))  # fmt: skip
            note = correction_note(unknown, packet.labels, misquoted)
            request = replace(request, correction=note)
        elapsed = _ms_since(started) - claims.verify_seconds * 1000.0
        answered = _timed(replace(base, usage=usage, error_detail=detail), "generate", elapsed)
        answered = _timed(answered, "verify", claims.verify_seconds * 1000.0)
        fallback = last or GroundedResponse(status="answered", claims=[], message="")
        return _verified(answered, claims.result(fallback))

    async def _generate(
        self, base: Answer, packet: EvidencePacket, user_id: str | None, deadline: Deadline,
        report: Report,
    ) -> Answer:  # fmt: skip
        started = time.perf_counter()
        request = GenerationRequest(
            packet, build_prompt(packet), user_id=user_id, deadline=deadline
        )
        try:
            first = await self._generator.generate(request)
        except GenerationError as exc:
            return self._failed(_timed(base, "generate", _ms_since(started)), exc)
        response, usage = await self._regenerate_if_needed(request, first)
        generated = _timed(replace(base, usage=base.usage + usage), "generate", _ms_since(started))
        report(Checking(len(response.claims)))
        started = time.perf_counter()
        verification = verify(response, packet, self._url_for)
        return _verified(_timed(generated, "verify", _ms_since(started)), verification)

    def _failed(self, base: Answer, exc: GenerationError) -> Answer:
        """An `error` answer: a reason code for the user (the bot words it); the kind and
        detail for admins."""
        detail = f"{exc.kind}: {exc}"
        self._log.warning(
            "generation failed kind=%s team=%s channel=%s generator=%s: %s",
            exc.kind,
            base.scope.team_id,
            base.scope.channel_id,
            base.generator,
            exc,
        )
        reason = MODEL_FAILURES.get(exc.kind, NoAnswer.MODEL_UNAVAILABLE)
        return replace(base, status=AnswerStatus.ERROR, reason=reason, error_detail=detail)

    async def _regenerate_if_needed(
        self, request: GenerationRequest, first: Generation
    ) -> tuple[GroundedResponse, Usage]:
        """Regenerate once if the response cites ids outside the packet or quotes text no item
        holds; verify drops any left."""
        unknown = unknown_citations(first.response, request.packet)
        misquoted = unknown_quotes(first.response, request.packet)
        if not unknown and not misquoted:
            return first.response, first.usage
        self._log.info(
            "regenerating: %d unknown evidence ids, %d unknown quotes", len(unknown), len(misquoted)
        )
        note = correction_note(unknown, request.packet.labels, misquoted)
        try:
            second = await self._generator.generate(replace(request, correction=note))
        except GenerationError as exc:
            # The first response is still verified (its offending claims dropped): better than
            # nothing, and never unchecked.
            self._log.warning(
                "regeneration failed kind=%s; verifying the first response: %s", exc.kind, exc
            )
            return first.response, first.usage
        return second.response, first.usage + second.usage

    def _inside(self, hits: Sequence[Hit], scope: Scope) -> tuple[Hit, ...]:
        """Defence in depth: a retriever bug must not put another scope's chunk in a prompt."""
        allowed = set(scope.collections)
        kept = tuple(hit for hit in hits if hit.chunk.collection in allowed)
        if len(kept) != len(hits):
            # Only the count: ids of chunks outside the scope are never logged (scope rule 1).
            self._log.error(
                "retriever returned %d chunks outside the scope; dropped them",
                len(hits) - len(kept),
            )
        return kept

    def _finish(self, answer: Answer, scope: Scope, *, hits: int) -> Answer:
        self._log.info(
            "answer status=%s team=%s channel=%s kind=%s collections=%s hits=%d sources=%s "
            "omitted=%d dropped=%s generator=%s gate=%s timings_ms=%s",
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
            "-" if answer.gate is None else f"{answer.gate.near}:{answer.gate.nearness:.3f}",
            {name: round(ms, 1) for name, ms in answer.timings_ms.items()},
        )
        return answer


def thread_query(question: str, context: Sequence[str]) -> str:
    """What is searched for a question: it, after the last few earlier questions of its thread."""
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


def _timings(**measured: float) -> dict[str, float]:
    return {stage: measured.get(stage, 0.0) for stage in STAGES}


def _timed(answer: Answer, stage: str, ms: float) -> Answer:
    # A new dict on a new Answer: the frozen Answer's dict is never mutated in place.
    return replace(answer, timings_ms={**answer.timings_ms, stage: ms})


def _refused(question: str, scope: Scope) -> Answer:
    # An UNKNOWN scope is empty because Slack could not tell us what this channel is, not
    # because it has no access: the two causes are told apart, and worded by the bot.
    unknown = scope.kind is ConversationKind.UNKNOWN
    return Answer(
        status=AnswerStatus.REFUSED,
        question=question,
        scope=scope,
        reason=NoAnswer.UNVERIFIED_CHANNEL if unknown else NoAnswer.NO_ACCESS,
        timings_ms=_timings(),
    )


def _nothing_found(base: Answer) -> Answer:
    # The same reason as when the evidence did not answer: to the user both mean the docs don't.
    return replace(base, status=AnswerStatus.NOT_FOUND, reason=NoAnswer.NOT_IN_DOCS)


def _verified(base: Answer, verification: Verification) -> Answer:
    return replace(
        base,
        status=verification.status,
        claims=verification.claims,
        sources=verification.sources,
        reason=verification.reason,
        dropped_claims=verification.dropped,
    )


def _ms_since(started: float) -> float:
    return (time.perf_counter() - started) * 1000.0
