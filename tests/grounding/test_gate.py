"""The gate before the generator: nearness, its size independence, and a gated pipeline that never
calls the generator."""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from grounding.answer import AnswerStatus, Usage
from grounding.evidence import PackPolicy
from grounding.gate import (
    THRESHOLDS_FILE,
    NearnessGate,
    fitted_min_scope,
    fitted_thresholds,
    nearness,
    setup_key,
)
from grounding.pipeline import AnswerPipeline
from retrieval.chunks import Chunk, Hit
from retrieval.corpus import index_text
from retrieval.scopes import Scope
from retrieval.text import tokenize
from tests.grounding.fakes import (
    FakeRetriever,
    RecordingGenerator,
    WordCounter,
    make_chunk,
    make_scope,
    response,
)

ROTATE = make_chunk(
    "Rotate the payments API key every 90 days with the rotate-key job.",
    collection="payments",
    path="keys.md",
    heading_path=("Keys", "Rotation"),
)
DEPLOY = make_chunk("Deploys run from the main branch after review.", path="deploy.md")
SCOPE = make_scope("handbook", "payments")


@dataclass
class ChunkStats:
    """Document frequencies counted over a list of chunks, `scale` times over (a bigger corpus
    of the same kind: every count and the number of chunks multiplied)."""

    chunks: Sequence[Chunk]
    scale: int = 1

    def frequencies(self, terms: Sequence[str], scope: Scope) -> tuple[int, list[int]]:
        df = Counter(t for c in self.chunks for t in set(tokenize(index_text(c))))
        return len(self.chunks) * self.scale, [df[t] * self.scale for t in terms]


def _hits(*chunks: Chunk) -> tuple[Hit, ...]:
    return tuple(Hit(c, 1.0, rank) for rank, c in enumerate(chunks, 1))


def test_gate_nearness_weighs_rare_terms_and_is_zero_without_hits() -> None:
    stats = ChunkStats([ROTATE, DEPLOY])
    on_topic = nearness("how do we rotate the payments key?", _hits(ROTATE), stats, SCOPE)
    off_topic = nearness("tallest mountain in Africa, main peak?", _hits(DEPLOY), stats, SCOPE)
    assert on_topic > 0.9
    assert 0 < off_topic < 0.3
    assert nearness("rotate the key", (), stats, SCOPE) == 0.0
    assert nearness("the of", _hits(ROTATE), stats, SCOPE) == 0.0  # no search terms


def test_gate_nearness_means_the_same_in_a_corpus_a_hundred_times_bigger() -> None:
    question = "how do I rotate the payments key on the main branch?"
    small = nearness(question, _hits(ROTATE, DEPLOY), ChunkStats([ROTATE, DEPLOY]), SCOPE)
    big = nearness(question, _hits(ROTATE, DEPLOY), ChunkStats([ROTATE, DEPLOY], 100), SCOPE)
    assert abs(small - big) < 0.05


def test_gate_thresholds_are_fit_for_every_search_setup() -> None:
    thresholds = fitted_thresholds()
    for engine in ("bm25", "tantivy"):
        for dense in (False, True):
            assert 0 < thresholds[setup_key(engine, dense)] < 1


def _pipeline(threshold: float) -> tuple[AnswerPipeline, RecordingGenerator]:
    generator = RecordingGenerator([response(("Deploys run from the main branch.", ["E1"]))])
    chunks = (ROTATE, DEPLOY)
    # Statistics of a scope big enough to be gated (the fitted floor), of the same kind.
    floor = fitted_min_scope()
    stats = ChunkStats(chunks, scale=floor)
    gate = NearnessGate({"fake": threshold}, lambda scope: "fake", stats, floor)
    pipeline = AnswerPipeline(
        FakeRetriever(chunks), generator, WordCounter(), PackPolicy(), lambda c: None, gate=gate
    )
    return pipeline, generator


def test_gate_closed_answers_not_found_without_calling_the_generator() -> None:
    pipeline, generator = _pipeline(threshold=0.5)
    answer = asyncio.run(pipeline.answer("what is the main export of Chad and Niger?", SCOPE))
    assert answer.status is AnswerStatus.NOT_FOUND
    assert generator.requests == []
    assert answer.gate is not None and not answer.gate.near
    assert answer.gate.nearness < answer.gate.threshold == 0.5
    assert answer.usage == Usage(0, 0)
    assert answer.timings_ms["generate"] == 0.0 and answer.timings_ms["verify"] == 0.0
    assert answer.retrieved, "the hits it judged are kept for the admin"
    shown = answer.to_dict()["gate"]
    assert shown["near"] is False and shown["threshold"] == 0.5


def test_gate_open_calls_the_generator() -> None:
    pipeline, generator = _pipeline(threshold=0.5)
    answer = asyncio.run(pipeline.answer("which branch do deploys run from?", SCOPE))
    assert answer.status is AnswerStatus.ANSWERED
    assert len(generator.requests) == 1
    assert answer.gate is not None and answer.gate.near


def test_gate_never_closes_on_a_scope_too_small_for_missing_words_to_mean_much() -> None:
    gate = NearnessGate(
        {"fake": 0.9}, lambda scope: "fake", ChunkStats([ROTATE, DEPLOY]), fitted_min_scope()
    )
    verdict = gate.judge(["tallest mountain in Africa, main peak?"], SCOPE, _hits(DEPLOY))
    assert verdict.near and verdict.nearness < verdict.threshold


def test_gate_floor_is_the_smallest_scope_the_thresholds_were_fit_on() -> None:
    fit = json.loads(THRESHOLDS_FILE.read_text(encoding="utf-8"))
    sizes = fit["scope_chunks"]
    assert set(sizes) == set(fit["corpora"]), "every corpus fit on has its size"
    assert fitted_min_scope() == min(sizes.values()) > 0
