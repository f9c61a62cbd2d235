"""A question BM25 finds nothing for (no word in common with the scope) is ranked by its dense
side alone, and that side keeps the scope rules: what one channel may not read takes no part."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from retrieval.config import Config
from retrieval.fusion import ExactScores, reciprocal_rank, weighted
from retrieval.index import Index, build_index
from retrieval.scopes import ConversationKind, resolve_scope
from tests.retrieval.docs_tree import WordCounter, public_and_secret

SCORES = np.array([0.1, 0.9, 0.2, 0.8, -0.3], dtype=np.float32)


def test_fusion_dense_only_ranks_by_dense_score_below_the_dense_weight() -> None:
    ranked = weighted([], ExactScores(SCORES), k=5, weight=0.35, depth=5)
    # The worst candidate normalises to 0 and is dropped, as a dense-only find always was.
    assert [p for p, _ in ranked] == [1, 3, 2, 0]
    dense = (SCORES - SCORES.min()) / (SCORES.max() - SCORES.min())
    for position, score in ranked:
        assert score == pytest.approx(0.35 * dense[position], abs=1e-6)
    assert ranked[0][1] == pytest.approx(0.35)


def test_fusion_dense_only_respects_k_and_depth() -> None:
    assert [p for p, _ in weighted([], ExactScores(SCORES), k=2, depth=5)] == [1, 3]
    assert [p for p, _ in weighted([], ExactScores(SCORES), k=5, depth=2)] == [1]


def test_fusion_dense_only_flat_scores_all_count() -> None:
    flat = ExactScores(np.full(3, 0.4, dtype=np.float32))
    assert weighted([], flat, k=3, weight=0.35) == [(0, 0.35), (1, 0.35), (2, 0.35)]


def test_fusion_dense_only_without_a_vector_finds_nothing() -> None:
    assert weighted([], ExactScores(np.zeros(5, dtype=np.float32)), k=5) == []
    assert reciprocal_rank([], ExactScores(np.zeros(5, dtype=np.float32)), k=5) == []
    assert weighted([], ExactScores(np.zeros(0, dtype=np.float32)), k=5) == []


def test_fusion_reciprocal_rank_dense_only_is_the_dense_ranking() -> None:
    ranked = reciprocal_rank([], ExactScores(SCORES), k=3, depth=5)
    assert [p for p, _ in ranked] == [1, 3, 2]
    assert ranked[0][1] == pytest.approx(1 / 61)


# A fake bilingual model: a few Spanish words embed as the English word they translate, the rest
# as themselves (a hashed bag of words), so "revertir" is near "rollback" while BM25, which reads
# words, sees nothing in common.
_SPANISH = {"revertir": "rollback", "compilación": "build", "anterior": "previous"}


class TranslatingEmbedder:
    name = "fake-bilingual"
    dim = 64

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in re.findall(r"\w+", text.lower()):
                word = _SPANISH.get(word, word)
                out[row, hashlib.sha256(word.encode()).digest()[0] % self.dim] += 1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        np.divide(out, norms, out=out, where=norms > 0)
        return out


QUESTION = "¿revertir compilación anterior?"


def _index(config: Config) -> Index:
    build_index(config, WordCounter(), TranslatingEmbedder())
    return Index.load(config, TranslatingEmbedder())


def _hits(index: Index, config: Config, channel: str) -> list[tuple[str, str, int, float]]:
    scope = resolve_scope(config, "T1", channel, ConversationKind.CHANNEL)
    return [
        (h.chunk.collection, h.chunk.path, h.chunk.start_line, h.score)
        for h in index.search(QUESTION, scope, 5)
    ]


def test_dense_only_hits_are_returned_when_bm25_finds_nothing(tmp_path: Path) -> None:
    config = public_and_secret(tmp_path)
    index = _index(config)
    scope = resolve_scope(config, "T1", "CPUB", ConversationKind.CHANNEL)
    lexical, dense = index.candidates(QUESTION, scope, 20)
    assert lexical == [] and dense is not None
    hits = index.search(QUESTION, scope, 3)
    assert hits, "the dense side's finds were dropped"
    assert hits[0].chunk.heading_path == ("Deploy", "Rollback")
    assert [h.rank for h in hits] == list(range(1, len(hits) + 1))


def test_dense_only_a_private_collection_changes_nothing_in_another_channel(
    tmp_path: Path,
) -> None:
    with_secret = public_and_secret(tmp_path / "with")
    without = public_and_secret(tmp_path / "without", with_secret=False)
    index = _index(with_secret)
    public = _hits(index, with_secret, "CPUB")
    assert public == _hits(_index(without), without, "CPUB")
    assert all(collection == "handbook" for collection, *_ in public)
    # The channel that may read the private collection gets its chunks too.
    assert any(collection == "payments" for collection, *_ in _hits(index, with_secret, "CPAY"))
