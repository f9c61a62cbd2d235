"""The dense side of fusion at scale: a prefix shortlist, then exact scores."""

from __future__ import annotations

import numpy as np

from retrieval.dense import InMemoryVectors, ShortlistScores
from retrieval.fusion import dense_top


def _unit(rows: int, seed: int) -> np.ndarray:
    vectors = np.random.default_rng(seed).normal(size=(rows, 256)).astype(np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


BLOCKS = [_unit(300, 1), _unit(5, 2), _unit(200, 3)]
QUERY = _unit(1, 4)[0]
EXACT = np.concatenate([block @ QUERY for block in BLOCKS])


def _side(shortlist: int) -> ShortlistScores:
    return ShortlistScores([InMemoryVectors(b) for b in BLOCKS], QUERY, shortlist)


def test_shortlist_scores_are_exact_across_collections() -> None:
    positions = np.array([0, 299, 300, 304, 305, 504], dtype=np.int64)
    assert np.allclose(_side(10).at(positions), EXACT[positions], atol=1e-6)


def test_shortlist_as_large_as_the_scope_is_the_exact_ranking() -> None:
    assert _side(10_000).top(50).tolist() == dense_top(EXACT, 50).tolist()


def test_small_shortlist_returns_exactly_scored_best_first() -> None:
    top = _side(100).top(20)
    scores = EXACT[top]
    assert len(top) == 20
    assert list(scores) == sorted(scores, reverse=True)
    # How well the real model's prefix shortlists is measured by benchmarks/dense_fusion.py
    # (random vectors like these have no meaningful prefix).


def test_shortlist_question_without_a_vector_has_no_best() -> None:
    side = ShortlistScores([InMemoryVectors(BLOCKS[0])], np.zeros(256, np.float32))
    assert side.top(5).tolist() == []
