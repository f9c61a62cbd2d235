"""AnswerPipeline.answer(): refusal, not_found, regeneration, errors, timings and what is logged."""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass

import pytest

from bot.render.no_answer import MODEL_FAILURE_TEXT, no_answer_text
from grounding.answer import Answer, AnswerStatus, NoAnswer, Usage
from grounding.evidence import PackPolicy
from grounding.generators.base import GenerationError, GenerationRequest
from grounding.pipeline import MODEL_FAILURES, AnswerPipeline
from grounding.schema import GroundedResponse
from retrieval.chunks import Chunk, Hit
from retrieval.errors import InputError
from retrieval.scopes import ConversationKind, Scope
from tests.grounding.fakes import (
    FakeRetriever,
    RecordingGenerator,
    Script,
    WordCounter,
    insufficient,
    make_chunk,
    make_scope,
    response,
)

ROTATE = make_chunk(
    "Rotate the payments API key every 90 days with the rotate-key job.",
    collection="payments",
    path="keys.md",
    heading_path=("Keys", "Rotation"),
    start_line=12,
)
DEPLOY = make_chunk(
    "Deploys run from the main branch after review.",
    path="deploy.md",
    heading_path=("Deploy",),
    start_line=3,
)
CHUNKS = (ROTATE, DEPLOY)
GOOD = response(("Rotate the payments API key every 90 days.", ["E1"]))
SCOPE = make_scope("handbook", "payments")


def _url(chunk: Chunk) -> str:
    return f"https://git.example/{chunk.collection}/{chunk.path}#L{chunk.start_line}"


def _pipeline(
    script: list[Script],
    chunks: Sequence[Chunk] = CHUNKS,
    logger: logging.Logger | None = None,
) -> tuple[AnswerPipeline, FakeRetriever, RecordingGenerator]:
    retriever = FakeRetriever(chunks)
    generator = RecordingGenerator(script)
    pipeline = AnswerPipeline(
        retriever, generator, WordCounter(), PackPolicy(), _url, k=5, logger=logger
    )
    return pipeline, retriever, generator


ROTATE_Q = "how often do we rotate the payments key?"


def _ask(
    pipeline: AnswerPipeline,
    question: str = ROTATE_Q,
    scope: Scope = SCOPE,
    context: Sequence[str] = (),
) -> Answer:
    return asyncio.run(pipeline.answer(question, scope, context=context, user_id="U1"))


def test_answer_returns_verified_claims_with_sources_and_bookkeeping() -> None:
    pipeline, _, generator = _pipeline([GOOD])
    answer = _ask(pipeline)
    assert answer.status is AnswerStatus.ANSWERED
    assert [(c.text, c.citations) for c in answer.claims] == [
        ("Rotate the payments API key every 90 days.", (1,))
    ]
    assert answer.sources[0].chunk_id == ROTATE.chunk_id
    assert answer.sources[0].url == "https://git.example/payments/keys.md#L12"
    assert answer.retrieved[0].chunk_id == ROTATE.chunk_id
    assert answer.retrieved[0].collection == "payments"
    assert answer.generator == "fake"
    assert answer.usage == Usage(100, 20)
    assert set(answer.timings_ms) == {"rewrite", "retrieve", "pack", "gate", "generate", "verify"}
    assert all(ms >= 0 for ms in answer.timings_ms.values())
    (request,) = generator.requests
    assert request.user_id == "U1" and request.correction is None
    assert request.packet.items[0].chunk == ROTATE
    assert f'<untrusted-source-{request.packet.nonce} id="E1">' in request.prompt.input
    json.dumps(answer.to_dict())


def test_answer_empty_scope_is_refused_without_searching() -> None:
    pipeline, retriever, generator = _pipeline([GOOD])
    empty = Scope("T1", "C9", ConversationKind.EXTERNAL, ())
    answer = _ask(pipeline, scope=empty)
    assert answer.status is AnswerStatus.REFUSED
    assert answer.reason is NoAnswer.NO_ACCESS and answer.message == ""  # the bot words it
    assert retriever.queries == [] and generator.requests == []


def test_answer_unknown_kind_empty_scope_says_the_lookup_failed_not_no_access() -> None:
    # conversations.info failed: the channel may well have access; asking an admin is wrong.
    pipeline, retriever, generator = _pipeline([GOOD])
    answer = _ask(pipeline, scope=Scope("T1", "C9", ConversationKind.UNKNOWN, ()))
    assert answer.status is AnswerStatus.REFUSED
    assert answer.reason is NoAnswer.UNVERIFIED_CHANNEL and answer.message == ""
    assert retriever.queries == [] and generator.requests == []


def test_answer_fences_each_request_with_a_fresh_nonce() -> None:
    pipeline, _, generator = _pipeline([GOOD])
    _ask(pipeline)
    _ask(pipeline)
    nonces = [request.packet.nonce for request in generator.requests]
    assert all(re.fullmatch(r"[0-9]{24}", nonce) for nonce in nonces)
    assert nonces[0] != nonces[1]
    for request in generator.requests:
        close = f"</untrusted-source-{request.packet.nonce}>"
        assert request.prompt.input.count(close) == len(request.packet.items)


@pytest.mark.parametrize(
    ("scope", "script"),
    [
        (Scope("T1", "C9", ConversationKind.UNKNOWN, ()), [GOOD]),
        (make_scope("handbook"), [GOOD]),  # the question below finds nothing: not_found
        (SCOPE, [GenerationError("timeout", "no answer in 30 s")]),
        (SCOPE, [GOOD]),
    ],
)
def test_answer_timings_always_name_every_stage(scope: Scope, script: list[Script]) -> None:
    pipeline, _, _ = _pipeline(script)
    question = "kubernetes pod autoscaling" if scope == make_scope("handbook") else ROTATE_Q
    answer = _ask(pipeline, question=question, scope=scope)
    stages = {"rewrite", "retrieve", "pack", "gate", "generate", "verify"}
    assert set(answer.to_dict()["timings_ms"]) == stages
    assert all(ms >= 0 for ms in answer.timings_ms.values())


def test_answer_without_hits_is_not_found_and_never_calls_the_generator() -> None:
    pipeline, _, generator = _pipeline([GOOD])
    answer = _ask(pipeline, question="kubernetes pod autoscaling", scope=make_scope("handbook"))
    assert answer.status is AnswerStatus.NOT_FOUND
    assert answer.reason is NoAnswer.NOT_IN_DOCS and answer.scope.collections == ("handbook",)
    assert generator.requests == []
    assert answer.claims == () and answer.sources == ()


def test_answer_insufficient_context_is_not_found() -> None:
    pipeline, _, generator = _pipeline([insufficient("Try restarting it.")])
    answer = _ask(pipeline)
    assert answer.status is AnswerStatus.NOT_FOUND
    assert "restarting" not in answer.message
    assert len(generator.requests) == 1


def test_answer_unknown_citation_regenerates_exactly_once_with_a_correction() -> None:
    bad = response(("Rotate the payments API key every 90 days.", ["E7"]))
    pipeline, _, generator = _pipeline([bad, GOOD])
    answer = _ask(pipeline)
    assert answer.status is AnswerStatus.ANSWERED
    assert len(generator.requests) == 2
    first, second = generator.requests
    assert first.correction is None
    assert second.correction is not None and "'E7'" in second.correction
    assert second.prompt == first.prompt and second.packet == first.packet
    assert answer.usage == Usage(200, 40)


def test_answer_still_unknown_after_regeneration_drops_the_offending_claims() -> None:
    def bad(request: GenerationRequest) -> GroundedResponse:
        deploy = next(i.label for i in request.packet.items if i.chunk == DEPLOY)
        return response(
            ("Rotate the payments API key every 90 days.", ["E7"]),
            ("Deploys run from the main branch.", [deploy]),
        )

    pipeline, _, generator = _pipeline([bad, bad, GOOD])
    answer = _ask(pipeline, question="rotate payments key and deploys from main branch?")
    assert len(generator.requests) == 2
    assert [c.text for c in answer.claims] == ["Deploys run from the main branch."]
    assert [(d.reason, d.detail) for d in answer.dropped_claims] == [("unknown_citation", "E7")]


def test_answer_generator_error_is_an_error_answer() -> None:
    pipeline, _, _ = _pipeline([GenerationError("timeout", "the model did not answer in 30 s")])
    answer = _ask(pipeline)
    assert answer.status is AnswerStatus.ERROR
    assert answer.reason is NoAnswer.MODEL_TIMEOUT and answer.message == ""
    assert no_answer_text(answer) == MODEL_FAILURE_TEXT[NoAnswer.MODEL_TIMEOUT]
    assert answer.error_detail == "timeout: the model did not answer in 30 s"
    assert answer.to_dict()["error_detail"] == answer.error_detail
    assert answer.claims == () and answer.sources == ()
    assert "generate" in answer.timings_ms


AUTH_DETAIL = (
    "the model server rejected the credentials (HTTP 401): Incorrect API key provided: "
    "sk-proj-****wxyz; check OPENAI_API_KEY"
)


@pytest.mark.parametrize(
    ("kind", "says"),
    [
        ("auth", "a docbot admin has to fix"),
        ("rejected", "a docbot admin has to fix"),
        ("quota", "a docbot admin has to fix"),
        ("unavailable", "unavailable right now"),
        ("rate_limited", "rate limited right now"),
        ("timeout", "took too long to answer"),
        ("refusal", "declined to answer this question"),
        ("incomplete", "ask a narrower question"),
        ("invalid", "could not produce a valid answer"),
        ("odd", "unavailable right now"),
    ],
)
def test_answer_error_message_is_fixed_per_kind_and_the_detail_is_logged(
    kind: str, says: str, caplog: pytest.LogCaptureFixture
) -> None:
    logger = logging.getLogger("test.pipeline.errors")
    pipeline, _, _ = _pipeline([GenerationError(kind, AUTH_DETAIL)], logger=logger)
    with caplog.at_level(logging.INFO, logger="test.pipeline.errors"):
        answer = _ask(pipeline)
    assert answer.status is AnswerStatus.ERROR
    seen = no_answer_text(answer)  # what the user reads (the bot words the reason code)
    for leak in ("sk-", "401", "OPENAI_API_KEY", "credentials", "wxyz"):
        assert leak not in seen and leak not in answer.message
    assert answer.reason is MODEL_FAILURES.get(kind, NoAnswer.MODEL_UNAVAILABLE)
    assert says in seen and answer.message == ""
    assert answer.error_detail == f"{kind}: {AUTH_DETAIL}"
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert any(f"kind={kind}" in w and AUTH_DETAIL in w for w in warnings)


def test_answer_failed_regeneration_verifies_the_first_response() -> None:
    mixed = response(
        ("Rotate the payments API key every 90 days.", ["E1"]),
        ("Deploys need two approvals.", ["E9"]),
    )
    pipeline, _, generator = _pipeline([mixed, GenerationError("rate_limited", "slow down")])
    answer = _ask(pipeline)
    assert len(generator.requests) == 2
    assert answer.status is AnswerStatus.ANSWERED
    assert [c.text for c in answer.claims] == ["Rotate the payments API key every 90 days."]
    assert [d.reason for d in answer.dropped_claims] == ["unknown_citation"]


def test_answer_context_feeds_retrieval_but_not_the_prompt_question() -> None:
    pipeline, retriever, generator = _pipeline([GOOD])
    _ask(pipeline, question="and how often?", context=["rotate the payments key"])
    assert retriever.queries == ["rotate the payments key\nand how often?"]
    assert generator.requests[0].packet.question == "and how often?"
    assert generator.requests[0].prompt.input.rstrip().endswith("Question: and how often?")


@pytest.mark.parametrize("question", ["", "   \n", "x" * 4001])
def test_answer_rejects_empty_and_overlong_questions(question: str) -> None:
    pipeline, retriever, _ = _pipeline([GOOD])
    with pytest.raises(InputError):
        _ask(pipeline, question=question)
    assert retriever.queries == []


@dataclass
class LeakyRetriever(FakeRetriever):
    """A broken retriever that ignores the scope."""

    def search(self, query: str, scope: Scope, k: int) -> tuple[Hit, ...]:
        everything = make_scope(*{c.collection for c in self.chunks})
        return super().search(query, everything, k)


def test_answer_drops_hits_outside_the_scope_even_if_the_retriever_leaks(
    caplog: pytest.LogCaptureFixture,
) -> None:
    generator = RecordingGenerator([insufficient()])
    retriever = LeakyRetriever(CHUNKS)
    logger = logging.getLogger("test.pipeline.leak")
    pipeline = AnswerPipeline(
        retriever, generator, WordCounter(), PackPolicy(), _url, logger=logger
    )
    with caplog.at_level(logging.DEBUG, logger="test.pipeline.leak"):
        answer = _ask(pipeline, question="rotate the payments key", scope=make_scope("handbook"))
    assert [r.chunk_id for r in answer.retrieved] == [DEPLOY.chunk_id]
    (request,) = generator.requests
    assert [i.chunk for i in request.packet.items] == [DEPLOY]
    assert "Rotate" not in request.prompt.input
    # Scope rule 1: what lies outside the scope is never logged, not even its ids.
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert "1 chunks outside the scope" in logged
    assert ROTATE.chunk_id not in logged and "payments" not in logged.split("outside")[1]


def test_answer_logs_ids_and_statuses_never_text(caplog: pytest.LogCaptureFixture) -> None:
    logger = logging.getLogger("test.pipeline")
    bad = response(("Rotate the payments API key every 90 days.", ["E4"]))
    pipeline, _, _ = _pipeline([bad, GOOD], logger=logger)
    with caplog.at_level(logging.DEBUG, logger="test.pipeline"):
        answer = _ask(pipeline)
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert "status=answered" in logged and ROTATE.chunk_id in logged
    for secret in ("Rotate the payments", "90 days", "how often", "rotate-key"):
        assert secret not in logged
    assert answer.status is AnswerStatus.ANSWERED


def test_answer_packs_neighbours_through_the_retriever() -> None:
    section = ("Runbook", "Restart")
    first = make_chunk("## Restart\n\n1. Drain the node.", heading_path=section, start_line=1)
    second = make_chunk("2. Restart the worker process.", heading_path=section, start_line=4)

    def cites_both(request: GenerationRequest) -> GroundedResponse:
        labels = [item.label for item in request.packet.items]
        quotes = ["Drain the node.", "Restart the worker process."]
        return response(("Drain the node, then restart the worker process.", labels, quotes))

    pipeline, _, generator = _pipeline([cites_both], chunks=(first, second))
    answer = _ask(pipeline, question="restart worker process", scope=make_scope("handbook"))
    assert [i.neighbour for i in generator.requests[0].packet.items] == [True, False]
    assert [s.chunk_id for s in answer.sources] == [first.chunk_id, second.chunk_id]
