"""A question that shares no word with its scope now gets the dense side's hits
(retrieval/fusion.py); an unrelated one must still end in `not_found`, never in a quote: the gate
closes on hits that hold none of its terms, and the offline reader refuses what does not answer."""

from __future__ import annotations

import asyncio
from pathlib import Path

from grounding.answer import AnswerStatus
from grounding.evidence import PackPolicy
from grounding.gate import NearnessGate
from grounding.generators.base import Generator
from grounding.generators.extractive import ExtractiveGenerator
from grounding.pipeline import AnswerPipeline
from retrieval.index import Index, build_index
from retrieval.scopes import ConversationKind, Scope, resolve_scope
from tests.grounding.fakes import RecordingGenerator, WordCounter, response
from tests.retrieval.docs_tree import public_and_secret
from tests.retrieval.test_fusion_dense_only import QUESTION, TranslatingEmbedder

UNRELATED = "¿cuál es la montaña más alta de África?"


def _pipeline(
    tmp_path: Path, generator: Generator, gate: bool
) -> tuple[AnswerPipeline, Index, Scope]:
    """The made-up public and private docs, indexed with the fake bilingual model; the public
    channel's scope."""
    config = public_and_secret(tmp_path)
    build_index(config, WordCounter(), TranslatingEmbedder())
    index = Index.load(config, TranslatingEmbedder())
    # Gated at any scope size (min_scope_chunks 0): the made-up scope is tiny.
    near = NearnessGate({"fake": 0.3}, lambda scope: "fake", index, 0) if gate else None
    pipeline = AnswerPipeline(
        index, generator, WordCounter(), PackPolicy(), lambda chunk: None, gate=near
    )
    return pipeline, index, resolve_scope(config, "T1", "CPUB", ConversationKind.CHANNEL)


def test_dense_only_hits_of_an_unrelated_question_are_gated(tmp_path: Path) -> None:
    generator = RecordingGenerator([response(("Pick the previous build.", ["E1"]))])
    pipeline, index, scope = _pipeline(tmp_path, generator, gate=True)
    for question in (UNRELATED, QUESTION):
        assert index.candidates(question, scope, 20)[0] == [], "BM25 must find nothing here"
        assert index.search(question, scope, 5), "the dense side finds something"
        answer = asyncio.run(pipeline.answer(question, scope))
        assert answer.status is AnswerStatus.NOT_FOUND
        assert answer.gate is not None and not answer.gate.near and answer.gate.nearness == 0.0
    assert generator.requests == []


def test_the_offline_reader_refuses_an_unrelated_dense_only_packet(tmp_path: Path) -> None:
    pipeline, _, scope = _pipeline(tmp_path, ExtractiveGenerator(), gate=False)
    answer = asyncio.run(pipeline.answer(UNRELATED, scope))
    assert answer.retrieved, "the packet was read, not empty"
    assert answer.status is AnswerStatus.NOT_FOUND and answer.claims == ()
